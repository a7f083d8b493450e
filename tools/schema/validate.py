"""Validates JSON documents against the schemas of cudyn's tools.

    python3 validate.py SCHEMA_DIR SCHEMA_ID FILE...

SCHEMA_ID is the document's "schema" value (cudainfo/2, cudyn-saxpy/2);
every *.schema.json of SCHEMA_DIR is loaded, so references between them
(urn:cudyn:schema:...) resolve without a network.  Exit 0: all valid;
1: some are not (each error said); 77: no jsonschema module here.
"""
import glob
import json
import os
import sys

try:
    import jsonschema
except ImportError:
    print("jsonschema is not installed (Debian: python3-jsonschema)")
    sys.exit(77)


def main():
    schema_dir, schema_id, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    store = {}
    for path in glob.glob(os.path.join(schema_dir, "*.schema.json")):
        with open(path, encoding="utf-8") as f:
            schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(schema)
        store[schema["$id"]] = schema
    schema = store["urn:cudyn:schema:" + schema_id]
    resolver = jsonschema.RefResolver.from_schema(schema, store=store)
    validator = jsonschema.Draft202012Validator(schema, resolver=resolver)
    bad = 0
    for path in files:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        for e in errors:
            where = "/".join(str(p) for p in e.absolute_path) or "(top)"
            print(f"{path}: {schema_id}: at {where}: {e.message}")
        bad += bool(errors)
    sys.exit(1 if bad else 0)


main()
