#!/usr/bin/env python3
"""Portability check for the connector products: they must build on Linux (Glibc, Musl) and on
every Apple platform, but no machine here has Apple's SDK, so this reads the sources instead.

Fails (exit 1, one line per finding as FILE:LINE: message) when, in the connector targets:
  - a platform module (Glibc, Musl, Darwin, FoundationNetworking, Testing, XCTest, ObjectiveC)
    is imported outside an `#if canImport(<that module>)` branch;
  - a call is qualified with a C library's module name (`Glibc.read`) outside the platform file
    Sources/TapedeckCore/Platform/SystemCalls.swift, or outside that library's own branch there;
  - a call that exists on one platform only (renameat2, posix_fadvise, renamex_np, F_FULLFSYNC, ...)
    sits outside a branch for that platform;
  - `@_silgen_name` is used, or an API newer than the declared floor (iOS 16 / macOS 13) is used:
    `Synchronization` (Mutex, Atomic: iOS 18).
`--self-test` runs the check on known-bad and known-good snippets and fails if it misjudges one.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGETS = ["Sources/TapedeckCore", "Sources/Tapedeck", "Sources/TapedeckTesting", "Sources/TapedeckOpenAPI",
           "Sources/TapedeckAsyncHTTPClient", "Sources/TapedeckNIO", "Sources/TapedeckGRPC", "Sources/TapedeckGRPCTesting",
           "Examples/APIClient/Sources"]
PLATFORM_FILE = "Sources/TapedeckCore/Platform/SystemCalls.swift"
GUARDED_MODULES = ["Glibc", "Musl", "Darwin", "FoundationNetworking", "Testing", "XCTest", "ObjectiveC"]
C_LIBRARIES = ["Glibc", "Musl", "Darwin"]
# call (a regular expression, matched from a word start) -> the conditions (any of them) under which it may appear
ONE_PLATFORM_CALLS = {
    "renameat2": ["canImport(Glibc)", "canImport(Musl)", "os(Linux)"],
    "posix_fadvise": ["canImport(Glibc)", "canImport(Musl)", "os(Linux)"],
    "POSIX_FADV_": ["canImport(Glibc)", "canImport(Musl)", "os(Linux)"],
    r"O_DIRECT\b": ["canImport(Glibc)", "canImport(Musl)", "os(Linux)"],
    "renamex_np": ["canImport(Darwin)"],
    "F_FULLFSYNC": ["canImport(Darwin)"],
    "objc_": ["canImport(ObjectiveC)", "canImport(Darwin)"],
}
BOUNDARY = r"\b"
FORBIDDEN = [
    (re.compile(r"@_silgen_name"), "@_silgen_name binds a symbol by name; declare it in a C target or use the platform module"),
    (re.compile(r"^\s*import\s+Synchronization\b"), "Synchronization (Mutex, Atomic) needs iOS 18 / macOS 15, above the declared floor; use Locked"),
]


def check_text(path, text):
    """Returns (line, message) findings for one Swift file's text."""
    findings = []
    stack = []  # the condition of each enclosing #if branch
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("//", 1)[0].strip()
        directive = re.match(r"#(if|elseif|else|endif)\b\s*(.*)", line)
        if directive:
            kind, condition = directive.groups()
            if kind == "if":
                stack.append(condition)
            elif kind == "elseif":
                if stack:
                    stack[-1] = condition
            elif kind == "else":
                if stack:
                    stack[-1] = "!(" + stack[-1] + ")"
            elif stack:
                stack.pop()
            continue
        active = " && ".join(stack)
        imported = re.match(r"(?:@\w+\s+)*import\s+(?:(?:struct|class|enum|func|var)\s+)?(\w+)", line)
        if imported and imported.group(1) in GUARDED_MODULES:
            module = imported.group(1)
            if f"canImport({module})" not in active or f"!(canImport({module})" in active:
                findings.append((number, f"`import {module}` outside `#if canImport({module})`"))
        for library in C_LIBRARIES:
            if re.search(rf"\b{library}\.\w", line) and not imported:
                if path != PLATFORM_FILE:
                    findings.append((number, f"`{library}.` call outside {PLATFORM_FILE}: add it there with a branch per C library"))
                elif f"canImport({library})" not in active:
                    findings.append((number, f"`{library}.` call outside `#if canImport({library})`"))
        for call, allowed in ONE_PLATFORM_CALLS.items():
            if re.search(rf"\b{call}", line) and not any(condition in active for condition in allowed):
                findings.append((number, f"`{call.replace(BOUNDARY, '')}` exists on one platform only: put it under #if {' or '.join(allowed)}"))
        for pattern, message in FORBIDDEN:
            if pattern.search(raw):
                findings.append((number, message))
    return findings


def check_tree():
    findings = []
    for target in TARGETS:
        for folder, _, files in os.walk(os.path.join(ROOT, target)):
            for name in sorted(files):
                if not name.endswith(".swift"):
                    continue
                full = os.path.join(folder, name)
                relative = os.path.relpath(full, ROOT)
                with open(full, encoding="utf-8") as handle:
                    for line, message in check_text(relative, handle.read()):
                        findings.append(f"{relative}:{line}: {message}")
    return findings


SELF_TESTS = [
    ("bad", "x.swift", "import FoundationNetworking\n"),
    ("bad", "x.swift", "#if canImport(Glibc)\nimport Glibc\n#else\nimport Darwin\n#endif\n"),
    ("bad", "x.swift", "#if canImport(Glibc)\nimport Glibc\n#endif\nlet n = Glibc.read(0, nil, 0)\n"),
    ("bad", PLATFORM_FILE, "#if canImport(Darwin)\nlet n = Glibc.read(0, nil, 0)\n#endif\n"),
    ("bad", "x.swift", "_ = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)\n"),
    ("bad", "x.swift", "@_silgen_name(\"mallopt\") func mallopt(_: Int32, _: Int32) -> Int32\n"),
    ("bad", "x.swift", "import Synchronization\n"),
    ("bad", "x.swift", "import Testing\n"),
    ("bad", "x.swift", "let fd = open(path, O_WRONLY | O_DIRECT)\n"),
    ("good", "x.swift", "let fd = open(path, O_RDONLY | O_DIRECTORY)\n"),
    ("good", "x.swift", "#if canImport(FoundationNetworking)\nimport FoundationNetworking\n#endif\n"),
    ("good", "x.swift", "#if canImport(Glibc)\nimport Glibc\n#elseif canImport(Musl)\nimport Musl\n#elseif canImport(Darwin)\nimport Darwin\n#endif\n"),
    ("good", PLATFORM_FILE, "#if canImport(Glibc)\nGlibc.read(0, nil, 0)\n#elseif canImport(Darwin)\nDarwin.read(0, nil, 0)\n#endif\n"),
    ("good", "x.swift", "#if os(Linux)\n_ = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)\n#endif\n"),
    ("good", "x.swift", "// Glibc.read is mentioned in a comment only\nlet x = 1\n"),
]


def self_test():
    wrong = []
    for expected, path, text in SELF_TESTS:
        found = check_text(path, text)
        if (expected == "bad") != bool(found):
            wrong.append(f"misjudged ({expected} expected, findings {found}): {text!r}")
    return wrong


def main():
    if "--self-test" in sys.argv:
        wrong = self_test()
        for line in wrong:
            print(line)
        print(f"portability self-test: {len(SELF_TESTS) - len(wrong)} passed, {len(wrong)} failed")
        return 1 if wrong else 0
    findings = check_tree()
    for line in findings:
        print(line)
    print(f"portability check: {len(findings)} finding(s) in {', '.join(TARGETS)}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
