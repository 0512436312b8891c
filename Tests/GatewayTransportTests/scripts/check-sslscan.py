#!/usr/bin/env python3
"""Judges an sslscan XML report: fails on any protocol below TLS 1.2, any accepted cipher
without forward secrecy, TLS compression, or renegotiation the client can start."""
import sys
import xml.etree.ElementTree as ElementTree

report = ElementTree.parse(sys.argv[1]).getroot()
test = report.find("ssltest")
problems = []
if test is None:
    sys.exit("sslscan produced no result: was the server listening?")

enabled = []
for protocol in test.findall("protocol"):
    name = f"{protocol.get('type')}{protocol.get('version')}"
    if protocol.get("enabled") == "1":
        enabled.append(name)
        if name not in ("tls1.2", "tls1.3"):
            problems.append(f"protocol {name} is enabled (only TLS 1.2 and 1.3 are allowed)")
if "tls1.3" not in enabled:
    problems.append("TLS 1.3 is not enabled")

ciphers = [c for c in test.findall("cipher") if c.get("status") in ("accepted", "preferred")]
if not ciphers:
    problems.append("no accepted cipher found")
for cipher in ciphers:
    name, version = cipher.get("cipher", ""), cipher.get("sslversion", "")
    forward_secret = version == "TLSv1.3" or name.startswith(("ECDHE-", "DHE-"))
    if not forward_secret:
        problems.append(f"{version} {name} has no forward secrecy")
    if any(weak in name for weak in ("RC4", "DES", "NULL", "EXPORT", "MD5", "CBC")):
        problems.append(f"{version} {name} is a weak cipher")

for compression in test.findall("compression"):
    if compression.get("supported") == "1":
        problems.append("TLS compression is supported")
for renegotiation in test.findall("renegotiation"):
    if renegotiation.get("supported") == "1" and renegotiation.get("secure") != "1":
        problems.append("insecure renegotiation is supported")

print(f"sslscan: protocols {', '.join(enabled)}; {len(ciphers)} ciphers: "
      + ", ".join(f"{c.get('sslversion')} {c.get('cipher')}" for c in ciphers))
if problems:
    for problem in problems:
        print(f"FAIL: {problem}")
    sys.exit(1)
print("sslscan: OK (TLS 1.2+ only, forward-secret ciphers only, no compression, no insecure renegotiation)")
