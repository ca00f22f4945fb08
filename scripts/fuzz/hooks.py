"""Schemathesis hooks for scripts/fuzz/run-schemathesis.mjs (SCHEMATHESIS_HOOKS=hooks).

Generated owner ids are random digits, so almost every report would stop at 403 (key not
scoped) and every pixel hit at "unknown owner". Most generated owner ids that are well-formed
are replaced with the owners the run bootstrapped (FUZZ_OWNER_IDS), so that the fuzzing reaches
report validation, aggregation and the pixel's publish path. Malformed ones are left alone:
they test validation.
"""
import os
import zlib

import schemathesis

OWNERS = [o for o in os.environ.get("FUZZ_OWNER_IDS", "").split(",") if o]


def _known_owner(value):
    """A bootstrapped owner for 3 in 4 well-formed ids (deterministic per value), else the value."""
    if not OWNERS or not isinstance(value, str) or not value.isdigit():
        return value
    digest = zlib.crc32(value.encode())
    return value if digest % 4 == 0 else OWNERS[digest % len(OWNERS)]


@schemathesis.hook
def map_body(ctx, body):
    if ctx.operation.path == "/api/v1/events/" and isinstance(body, dict) and "owner_id" in body:
        body["owner_id"] = _known_owner(body["owner_id"])
    return body


@schemathesis.hook
def map_query(ctx, query):
    if ctx.operation.path == "/v1/v.gif" and isinstance(query, dict) and "owner_id" in query:
        query["owner_id"] = _known_owner(query["owner_id"])
    return query


# the run's own credentials and owners: the stateful phase lists keys and users and deletes (or
# rotates the token of) what it finds, which would turn the rest of the run into 401s
PROTECTED = {p for p in os.environ.get("FUZZ_PROTECTED_IDS", "").split(",") if p}


def _destructive(operation):
    return operation.method.upper() == "DELETE" or operation.path.rstrip("/").endswith("/token")


@schemathesis.hook
def filter_path_parameters(ctx, path_parameters):
    if not path_parameters or not _destructive(ctx.operation):
        return True
    return not any(str(v) in PROTECTED for v in path_parameters.values())
