# bundle.awk - one tool's schema with common.schema.json inside it: a
# self-contained schema (a bundle, as JSON Schema 2020-12 describes them),
# so that a stock validator needs nothing else:
#   jsonschema -i doc.json cudainfo-2.schema.json
# The common schema goes in the tool's "$defs" with its own "$id"
# (urn:cudyn:schema:common), where the tool's "$ref"s to that URN find it.
#   awk -v common=common.schema.json -f bundle.awk cudainfo-2.schema.json
# The tool's schema must end with its "$defs", as the sources are written:
# "$defs" its last key at the top level, then "  }" and "}".
{ line[NR] = $0 }
/^  "/ { last_key = $0 }
END {
    n = NR
    while (n > 0 && line[n] == "") n--
    if (last_key !~ /^  "\$defs": \{$/ || line[n] != "}" || line[n - 1] != "  }") {
        print "bundle.awk: " FILENAME " does not end with its \"$defs\" object" > "/dev/stderr"
        exit 1
    }
    for (i = 1; i < n - 1; i++)
        print (i == n - 2 ? line[i] "," : line[i])
    first = 1
    while ((getline text < common) > 0) {
        print (first ? "    \"common.schema.json\": " text : "    " text)
        first = 0
    }
    if (first) {
        print "bundle.awk: cannot read " common > "/dev/stderr"
        exit 1
    }
    print "  }"
    print "}"
}
