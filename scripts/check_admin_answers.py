#!/usr/bin/env python3
"""Checks real admin API answers against the OpenAPI document (schema/admin-api.openapi.json).

    python3 scripts/check_admin_answers.py DOCUMENT                 # the document is valid OpenAPI 3.1
    python3 scripts/check_admin_answers.py DOCUMENT ANSWERS [--all]  # and every answer conforms to it

ANSWERS is a JSON list of what a server answered, one object per request:
    {"method": "GET", "path": "/__tapedeck/stubs/stub-1", "status": 200,
     "headers": {"content-type": "application/json", ...}, "body": "..."}
The path is the one sent (without the query): the checker finds its path template, concrete paths
first. Each answer's status must be documented for its operation (or, for a method the path does
not take, in the path's `x-tapedeck-other-methods`; for an unknown path, in the document's
`x-tapedeck-unknown-path`), its Content-Type must be one the response documents, its required
headers must be there and fit their schemas, and its body must fit the media type's schema (JSON
Schema 2020-12, read as JSON for JSON types, as a string otherwise; a HEAD answer's body is not
read). Those maps, their responses and the responses' headers may each be a `$ref` (or a chain of
them) within the document. A 405's Allow must name the path's documented methods, with HEAD beside
GET. With --all, every operation of the document, a method some path does not take and an unknown
path must each have been asked at least once.

Prints one line per problem and exits 1 when there is one (2 for bad input).
"""
import json
import re
import sys

from jsonschema import Draft202012Validator
from openapi_spec_validator import validate as validate_openapi

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def escape(part):
    """One reference token of a JSON pointer."""
    return str(part).replace("~", "~0").replace("/", "~1")


def pointer(*parts):
    """A JSON pointer fragment to a place in the document."""
    return "#/" + "/".join(map(escape, parts))


class Document:
    """The OpenAPI document, with its path templates as regular expressions."""

    def __init__(self, document):
        self.document = document
        self.paths = document["paths"]
        templates = []
        for template in self.paths:
            # A template's variable is one path segment; concrete paths are matched first.
            pattern = "^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template)) + "$"
            templates.append(("{" in template, template, re.compile(pattern)))
        self.templates = sorted(templates, key=lambda entry: entry[0])

    def template(self, path):
        for _, template, pattern in self.templates:
            if pattern.match(path):
                return template
        return None

    def locate(self, value, location):
        """Follows `value`, found at `location` (a pointer into the document), through its chain of
        $refs within the document: the value at the end, and that value's own pointer. A reference's
        description or summary beside $ref only overrides the text, so it is not kept."""
        while isinstance(value, dict) and "$ref" in value:
            location = value["$ref"]
            node = self.document
            for part in location.removeprefix("#/").split("/"):
                node = node[part.replace("~1", "/").replace("~0", "~")]
            value = node
        return value, location

    def validate(self, instance, location):
        """The problems of `instance` against the schema at `location` (a pointer into the document)."""
        # The document is the root resource, so its own "#/components/..." references resolve;
        # its other members are not JSON Schema keywords and are ignored.
        schema = dict(self.document)
        schema["$ref"] = location
        validator = Draft202012Validator(schema)
        return [f"{'/'.join(map(str, error.absolute_path)) or '(root)'}: {error.message}"
                for error in sorted(validator.iter_errors(instance), key=lambda error: list(error.absolute_path))]


def is_json(media_type):
    essence = media_type.split(";")[0].strip().lower()
    return essence == "application/json" or essence.endswith("+json")


def check_answer(doc, answer):
    """The problems of one answer."""
    method = answer["method"].lower()
    path = answer["path"].split("?")[0]
    status = str(answer["status"])
    headers = {name.lower(): value for name, value in answer.get("headers", {}).items()}
    template = doc.template(path)
    asked = "get" if method == "head" else method
    if template is None:
        responses, where = doc.document.get("x-tapedeck-unknown-path", {}), ["x-tapedeck-unknown-path"]
        key = ("unknown path", None)
    elif asked in doc.paths[template]:
        responses, where = doc.paths[template][asked]["responses"], ["paths", template, asked, "responses"]
        key = (template, asked)
    else:
        responses, where = doc.paths[template].get("x-tapedeck-other-methods", {}), ["paths", template, "x-tapedeck-other-methods"]
        key = ("other method", None)
    # The map, the response and its headers may each be a $ref: their schemas are read where it leads.
    responses, location = doc.locate(responses, pointer(*where))
    if status not in responses:
        return key, [f"status {status} is not documented (documented: {', '.join(sorted(responses))})"]
    problems = []
    response, location = doc.locate(responses[status], f"{location}/{escape(status)}")
    for name, header in response.get("headers", {}).items():
        header, place = doc.locate(header, f"{location}/headers/{escape(name)}")
        value = headers.get(name.lower())
        if value is None:
            if header.get("required"):
                problems.append(f"header {name} is missing")
            continue
        problems += [f"header {name}: {problem}" for problem in doc.validate(value, f"{place}/schema")]
    if key == ("other method", None) and status == "405" and "allow" in headers:
        allowed = {method.upper() for method in doc.paths[template] if method in METHODS}
        allowed |= {"HEAD"} if "GET" in allowed else set()
        named = {method.strip() for method in headers["allow"].split(",")}
        if named != allowed:
            problems.append(f"Allow names {', '.join(sorted(named))}, the document {', '.join(sorted(allowed))}")
    content = response.get("content")
    content_type = headers.get("content-type")
    if not content:
        if answer.get("body"):
            problems.append("a body, where the response documents none")
        return key, problems
    if content_type not in content:
        problems.append(f"Content-Type {content_type!r} is not documented (documented: {', '.join(content)})")
        return key, problems
    if method == "head":
        return key, problems
    body = answer.get("body", "")
    if is_json(content_type):
        try:
            instance = json.loads(body)
        except ValueError as error:
            return key, problems + [f"the body is not JSON: {error}"]
    else:
        instance = body
    problems += doc.validate(instance, f"{location}/content/{escape(content_type)}/schema")
    return key, problems


def main(arguments):
    flags = [argument for argument in arguments if argument.startswith("--")]
    positional = [argument for argument in arguments if not argument.startswith("--")]
    if not positional or len(positional) > 2 or set(flags) - {"--all"}:
        print(__doc__, file=sys.stderr)
        return 2
    with open(positional[0], encoding="utf-8") as file:
        document = json.load(file)
    try:
        validate_openapi(document)
    except Exception as error:  # The validator's errors have several types; each is a finding.
        print(f"{positional[0]} is not a valid OpenAPI document: {error}")
        return 1
    if len(positional) == 1:
        print(f"{positional[0]}: valid OpenAPI {document.get('openapi')}")
        return 0
    doc = Document(document)
    with open(positional[1], encoding="utf-8") as file:
        answers = json.load(file)
    failures = 0
    asked = set()
    for answer in answers:
        key, problems = check_answer(doc, answer)
        asked.add(key)
        for problem in problems:
            failures += 1
            print(f"{answer['method']} {answer['path']} -> {answer['status']}: {problem}")
    if "--all" in flags:
        expected = {(template, method) for template, item in doc.paths.items() for method in item if method in METHODS}
        expected |= {("other method", None), ("unknown path", None)}
        for template, method in sorted(expected - asked, key=str):
            failures += 1
            print(f"never asked: {method.upper() + ' ' if method else ''}{template}")
    print(f"{len(answers)} answers checked, {failures} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
