# tools/local.mk - cudainfo, cudyn-saxpy, cudyn-cc, their JSON schemas and bash completion
# (included from Makefile.am; paths are from the top of the tree)
bin_PROGRAMS = tools/cudainfo tools/cudyn-saxpy tools/cudyn-cc
TOOLS_COMMON = tools/common.c tools/common.h tools/json.c tools/json.h tools/device_select.c tools/device_select.h
# installed programs: no -no-install (Makefile.am's AM_LDFLAGS is for tests)
tools_cudainfo_SOURCES = tools/cudainfo.c tools/nvml_links.c tools/nvml_links.h tools/nvml_list.c tools/nvml_list.h \
	tools/mpi_info.c tools/mpi_info.h $(TOOLS_COMMON)
tools_cudainfo_LDFLAGS =
tools_cudyn_saxpy_SOURCES = tools/cudyn-saxpy.c tools/saxpy.h tools/saxpy_device.c tools/saxpy_host.c tools/saxpy_host.h \
	tools/saxpy_stage.c tools/saxpy_stage.h $(TOOLS_COMMON)
tools_cudyn_saxpy_LDFLAGS =
tools_cudyn_cc_SOURCES = tools/cudyn-cc.c $(TOOLS_COMMON)
tools_cudyn_cc_LDFLAGS =
dist_man_MANS += man/cudainfo.1 man/cudyn-saxpy.1 man/cudyn-cc.1
# JSON Schemas (draft 2020-12) of the tools' --json documents and of
# python3 -m cudyn --json (python/cudyn/__main__.py).  Each is installed self-contained, with
# common.schema.json bundled inside it (tools/schema/bundle.awk), so that
# stock validators need nothing else (jsonschema -i doc.json
# cudainfo-2.schema.json); the tests validate every document they produce
# against these bundles, with Debian's python3-jsonschema.
schemadir = $(datadir)/cudyn/schema
SCHEMA_FILES = tools/schema/cudainfo-2.schema.json tools/schema/cudyn-saxpy-2.schema.json \
	tools/schema/cudyn-info-1.schema.json
SCHEMA_BUNDLES = $(patsubst tools/schema/%,tools/schema/bundled/%,$(SCHEMA_FILES))
dist_schema_DATA = tools/schema/common.schema.json
nodist_schema_DATA = $(SCHEMA_BUNDLES)
tools/schema/bundled/%.schema.json: $(srcdir)/tools/schema/%.schema.json $(srcdir)/tools/schema/common.schema.json \
		$(srcdir)/tools/schema/bundle.awk
	$(AM_V_GEN)$(MKDIR_P) tools/schema/bundled && \
	$(AWK) -v common=$(srcdir)/tools/schema/common.schema.json -f $(srcdir)/tools/schema/bundle.awk $< > $@.tmp && \
	mv $@.tmp $@
CLEANFILES += $(SCHEMA_BUNDLES)
EXTRA_DIST += $(SCHEMA_FILES) tools/schema/bundle.awk
# bash completion (installed by Makefile.am's install-data-hook)
EXTRA_DIST += tools/completion/cudyn.bash tools/local.mk
