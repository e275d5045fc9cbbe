#!/usr/bin/env python3
"""Judge JSON Schema cases with Python's `jsonschema`, for Tapedeck's own validator's tests.

Tapedeck checks values against OpenAPI 3.0 and 3.1 schemas with a validator of its own
(Sources/TapedeckCore/Schema). Its differential tests write many cases to a file and ask this
script, in one process, whether each value is valid, then compare with Tapedeck's verdicts.

Usage:
    python3 scripts/jsonschema_judge.py CASES.jsonl

Each line of CASES.jsonl is one case:
    {"dialect": "draft2020_12" | "openAPI30", "schema": {...}, "instance": ..., "formats": true}

`schema` is the root document; the value is checked against its root. Output: one line per case,
in order: `valid`, `invalid`, or `error: MESSAGE` when jsonschema itself fails on the case.

How each dialect is judged:

- draft2020_12 (OpenAPI 3.1): `jsonschema.Draft202012Validator`, unchanged.
- openAPI30: `jsonschema.Draft4Validator` (the nearest jsonschema has to Wright draft 00, which
  the OpenAPI 3.0 Schema Object builds on), after translating what Draft 4 reads otherwise:
    * `nullable: true` beside a `type` becomes `type: [TYPE, "null"]` (OpenAPI 3.0.4: nullable
      only widens an explicit `type`, and does not add null to an `enum`);
    * the keywords beside a `$ref` are dropped (OpenAPI 3.0 ignores them; so does Draft 4).
  Draft 4's boolean `exclusiveMinimum`/`exclusiveMaximum` are OpenAPI 3.0's already. The type
  checker is Draft 6's, where `1.0` is an integer, as in Tapedeck.

Formats: when `formats` is true (the default), jsonschema's 2020-12 format checkers assert
date-time, date, time, email, uuid, ipv4 and ipv6 in both dialects (as Tapedeck does by default),
and this script adds OpenAPI's int32 and int64 (a whole number in range). jsonschema checks `uri`
only with the optional rfc3987 package, so it is not judged here; Tapedeck's unit tests cover it.
A case with `"formats": false` is judged without format checks.
"""

from __future__ import annotations

import json
import sys
from typing import Any

try:
    import jsonschema
    from jsonschema import validators
except ImportError:
    print("error: the jsonschema package is missing (python3 -m pip install jsonschema)", file=sys.stderr)
    sys.exit(2)

JUDGED_FORMATS = ["date-time", "date", "time", "email", "uuid", "ipv4", "ipv6"]


def format_checker() -> jsonschema.FormatChecker:
    # The 2020-12 checkers for both dialects: the generic FormatChecker's `time` is draft 3's
    # (`HH:MM:SS`, no offset), while OpenAPI 3.0 means RFC 3339's `full-time` as 2020-12 does.
    checker = jsonschema.FormatChecker(())
    checker.checkers = {name: jsonschema.Draft202012Validator.FORMAT_CHECKER.checkers[name] for name in JUDGED_FORMATS}

    def whole_in(low: int, high: int):
        def check(instance: Any) -> bool:
            if isinstance(instance, bool) or not isinstance(instance, (int, float)):
                return True
            if isinstance(instance, float) and not instance.is_integer():
                return False
            return low <= instance <= high
        return check

    checker.checks("int32")(whole_in(-(2**31), 2**31 - 1))
    checker.checks("int64")(whole_in(-(2**63), 2**63 - 1))
    return checker


# Draft 4 with Draft 6's types (1.0 is an integer).
OpenAPI30Validator = validators.extend(
    jsonschema.Draft4Validator, type_checker=jsonschema.Draft6Validator.TYPE_CHECKER
)

# Keywords whose value is one schema, a list of schemas, or a map of names to schemas.
SINGLE = ["additionalProperties", "items", "not", "contains", "propertyNames", "if", "then", "else"]
LISTS = ["allOf", "anyOf", "oneOf", "prefixItems"]
MAPS = ["properties", "patternProperties", "dependentSchemas", "$defs", "definitions"]


def translate_openapi30(schema: Any) -> Any:
    """An OpenAPI 3.0 Schema Object as the Draft 4 schema that means the same."""
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema:
        kept = {"$ref": schema["$ref"]}
        # Keep what $ref may point into: the containers of named schemas.
        for container in ("components", "$defs", "definitions"):
            if container in schema:
                kept[container] = translate_containers(container, schema[container])
        return kept
    result = dict(schema)
    result.pop("nullable", None)
    if schema.get("nullable") is True and isinstance(schema.get("type"), str):
        result["type"] = [schema["type"], "null"]
    for key in SINGLE:
        if isinstance(schema.get(key), dict):
            result[key] = translate_openapi30(schema[key])
    for key in LISTS:
        if isinstance(schema.get(key), list):
            result[key] = [translate_openapi30(item) for item in schema[key]]
    for key in MAPS:
        if isinstance(schema.get(key), dict):
            result[key] = {name: translate_openapi30(item) for name, item in schema[key].items()}
    if isinstance(schema.get("components"), dict):
        result["components"] = translate_containers("components", schema["components"])
    return result


def translate_containers(container: str, value: Any) -> Any:
    if container == "components" and isinstance(value, dict) and isinstance(value.get("schemas"), dict):
        return {**value, "schemas": {name: translate_openapi30(item) for name, item in value["schemas"].items()}}
    if container != "components" and isinstance(value, dict):
        return {name: translate_openapi30(item) for name, item in value.items()}
    return value


def judge(case: dict, checker: jsonschema.FormatChecker) -> str:
    schema = case["schema"]
    use_formats = case.get("formats", True)
    if case["dialect"] == "openAPI30":
        validator = OpenAPI30Validator(translate_openapi30(schema), format_checker=checker if use_formats else None)
    elif case["dialect"] == "draft2020_12":
        validator = jsonschema.Draft202012Validator(schema, format_checker=checker if use_formats else None)
    else:
        return f"error: unknown dialect {case['dialect']!r}"
    try:
        return "valid" if validator.is_valid(case["instance"]) else "invalid"
    except Exception as error:  # noqa: BLE001 - any failure of the judge is reported, not raised
        return f"error: {type(error).__name__}: {error}".replace("\n", " ")[:300]


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        print("usage: jsonschema_judge.py CASES.jsonl", file=sys.stderr)
        return 2
    checker = format_checker()
    with open(sys.argv[1], encoding="utf-8") as cases:
        for line in cases:
            if line.strip():
                print(judge(json.loads(line), checker))
    return 0


if __name__ == "__main__":
    sys.exit(main())
