"""Hooks of the API contract run (loaded through SCHEMATHESIS_HOOKS by OpenAPIConformanceTests).

The Idempotency-Key header is left out of generation: a generated key recurs across a stateful sequence
(the generator likes short, equal strings), and the repeat then rightly replays an old answer, such as
"201 created" for a device deleted since. Left in, it would make "created, then readable"
(ensure_resource_availability) unusable; left out, that check runs. Keys, replays, 409 and 422 are tested in
IdempotencyTests instead.
"""

import schemathesis

IDEMPOTENCY_KEY = "#/components/parameters/IdempotencyKey"


@schemathesis.hook
def before_load_schema(context, raw_schema):
    removed = 0
    for path in raw_schema.get("paths", {}).values():
        for operation in [path] + [value for value in path.values() if isinstance(value, dict)]:
            parameters = operation.get("parameters")
            if isinstance(parameters, list):
                kept = [p for p in parameters if not (isinstance(p, dict) and p.get("$ref") == IDEMPOTENCY_KEY)]
                removed += len(parameters) - len(kept)
                operation["parameters"] = kept
    if removed == 0:
        # The spec changed under this hook: fail loudly rather than generate the header again.
        raise RuntimeError("no Idempotency-Key parameter found to leave out of generation")
