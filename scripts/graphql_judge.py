#!/usr/bin/env python3
"""The outside judge of GraphQL syntax for the tests: graphql-core (PyPI) parses each document.

Reads a JSON array of documents from the file named as the argument (stdin without one); writes a
JSON array with, for each, {"parses": true} or {"parses": false, "line": L, "column": C,
"message": "..."} (line and column 1-based, the column in code points, as graphql-core reports them).
Usage: scripts/graphql_judge.py [DOCUMENTS.json]
"""
import json
import sys

from graphql import parse
from graphql.error import GraphQLSyntaxError


def judge(document):
    try:
        parse(document)
        return {"parses": True}
    except GraphQLSyntaxError as error:
        location = error.locations[0] if error.locations else None
        return {
            "parses": False,
            "line": location.line if location else None,
            "column": location.column if location else None,
            "message": error.message,
        }


def main():
    if len(sys.argv) > 1:
        with open(sys.argv[1], encoding="utf-8") as file:
            documents = json.load(file)
    else:
        documents = json.load(sys.stdin)
    json.dump([judge(document) for document in documents], sys.stdout)


if __name__ == "__main__":
    main()
