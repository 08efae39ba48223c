"""Schemathesis hooks of `npm run fuzz` (loaded through SCHEMATHESIS_HOOKS by bench/schemathesis.ts).

Generated webhook URLs would make the server deliver events to whatever hosts the fuzzer invents;
every http(s) URL in a POST /webhooks body is pointed at the harness's local receiver instead, so the
run contacts nothing outside this machine. Other inputs are sent as generated.
"""

import os
import re

import schemathesis

RECEIVER = os.environ["GOV_FUZZ_WEBHOOK_RECEIVER"]
HTTP_URL = re.compile(r"^[Hh][Tt][Tt][Pp][Ss]?://")


@schemathesis.hook
def before_call(context, case, kwargs):
    body = case.body
    if case.operation.path == "/webhooks" and case.method.upper() == "POST" and isinstance(body, dict):
        url = body.get("url")
        if isinstance(url, str) and HTTP_URL.match(url):
            body["url"] = RECEIVER
