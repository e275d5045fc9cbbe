#!/usr/bin/env python3
"""Prints a free TCP port on 127.0.0.1."""
import socket

with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    print(s.getsockname()[1])
