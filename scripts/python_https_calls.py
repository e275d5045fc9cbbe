"""Python's two common HTTP clients through an HTTPS forward proxy (the recording proxy or the
replay server): requests over HTTP/1.1, and httpx over HTTP/2 (it offers h2 by ALPN inside the
tunnel). Each prints the client, the HTTP version it spoke, the status and the body, one line
each, so a test can compare what they heard through the recording proxy and on replay.

Usage: python3 scripts/python_https_calls.py PROXY_URL CA_FILE BASE_URL
"""
import sys

import httpx
import requests

proxy, ca_file, base = sys.argv[1:4]

answer = requests.get(base + "/via-requests", proxies={"https": proxy}, verify=ca_file, timeout=30)
print("requests", answer.raw.version, answer.status_code, answer.text.strip())

with httpx.Client(http2=True, proxy=proxy, verify=ca_file, timeout=30) as client:
    answer = client.get(base + "/via-httpx")
    print("httpx", answer.http_version, answer.status_code, answer.text.strip())
