"""Schemathesis hooks of `npm run fuzz` (loaded through SCHEMATHESIS_HOOKS by bench/schemathesis.ts).

Generated webhook URLs would make the server deliver events to whatever hosts the fuzzer invents;
every http(s) URL in a POST /webhooks body is pointed at the harness's local receiver instead, so the
run contacts nothing outside this machine.

A generated `POST /api-key/rotate` that succeeds puts the harness's key into its 24 h grace period, in
which it may no longer manage the account (403 on webhooks, policy, rotation): from then on every call
authenticated is made with the newest key instead (an auth provider, not a fixed header), so those
routes keep being fuzzed. Other inputs are sent as generated.
"""

import os
import re

import schemathesis

RECEIVER = os.environ["GOV_FUZZ_WEBHOOK_RECEIVER"]
newest = {"key": os.environ["GOV_FUZZ_API_KEY"]}
HTTP_URL = re.compile(r"^[Hh][Tt][Tt][Pp][Ss]?://")


@schemathesis.auth(refresh_interval=None)
class NewestKey:
    """The tenant's newest API key, as a Bearer token."""

    def get(self, case, context):
        return newest["key"]

    def set(self, case, data, context):
        case.headers = case.headers or {}
        case.headers["Authorization"] = f"Bearer {data}"


@schemathesis.hook
def after_call(context, case, response):
    if case.operation.path == "/api-key/rotate" and case.method.upper() == "POST" and response.status_code == 200:
        newest["key"] = response.json()["api_key"]


@schemathesis.hook
def before_call(context, case, kwargs):
    body = case.body
    if case.operation.path == "/webhooks" and case.method.upper() == "POST" and isinstance(body, dict):
        url = body.get("url")
        if isinstance(url, str) and HTTP_URL.match(url):
            body["url"] = RECEIVER
