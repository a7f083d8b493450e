# man/local.mk - the manual: the tools' pages, cudyn-env(7), cudyn.hpp(3) and the man3
# pages written from include/cudyn.h
# (included from Makefile.am; paths are from the top of the tree)
# The library's pages are written from include/cudyn.h by man/mkman.awk:
# cudyn(3), a page per function group and a ".so" link per function and
# type.  Their names follow the header, so they are installed from the
# generator's directory, not from a list here.  Like every distributed
# generated file they are made in the source tree, and the tarball carries
# them: a build from it does not run the generator.
dist_man_MANS += man/cudyn-env.7 man/cudyn.hpp.3
man3dir = $(mandir)/man3
MAN3_STAMP = $(srcdir)/man/man3.stamp
# the pages' date: SOURCE_DATE_EPOCH's (reproducible builds), else today's
MAN_DATE = if test -n "$$SOURCE_DATE_EPOCH"; then \
	date -u -d "@$$SOURCE_DATE_EPOCH" +%Y-%m-%d 2>/dev/null || date -u -r "$$SOURCE_DATE_EPOCH" +%Y-%m-%d; \
	else date -u +%Y-%m-%d; fi
$(MAN3_STAMP): $(srcdir)/include/cudyn.h $(srcdir)/man/mkman.awk
	$(AM_V_GEN)rm -rf $(srcdir)/man/man3.tmp && $(MKDIR_P) $(srcdir)/man/man3.tmp && \
	LC_ALL=C $(AWK) -v outdir=$(srcdir)/man/man3.tmp -v version='$(VERSION)' -v date="`$(MAN_DATE)`" \
	    -v see_also='$(dist_man_MANS)' -f $(srcdir)/man/mkman.awk $(srcdir)/include/cudyn.h && \
	rm -rf $(srcdir)/man/man3 && mv $(srcdir)/man/man3.tmp $(srcdir)/man/man3 && touch $@
all-local: $(MAN3_STAMP)
install-data-local: $(MAN3_STAMP)
	@$(NORMAL_INSTALL)
	$(MKDIR_P) '$(DESTDIR)$(man3dir)'
	$(INSTALL_DATA) $(srcdir)/man/man3/*.3 '$(DESTDIR)$(man3dir)'
uninstall-local:
	@$(NORMAL_UNINSTALL)
	for f in $(srcdir)/man/man3/*.3; do rm -f "$(DESTDIR)$(man3dir)/`basename $$f`"; done
dist-hook: $(MAN3_STAMP)
	$(MKDIR_P) $(distdir)/man/man3
	cp -p $(srcdir)/man/man3/*.3 $(distdir)/man/man3
	cp -p $(MAN3_STAMP) $(distdir)/man
maintainer-clean-local:
	rm -rf $(srcdir)/man/man3 $(MAN3_STAMP)
EXTRA_DIST += man/mkman.awk

EXTRA_DIST += man/local.mk
