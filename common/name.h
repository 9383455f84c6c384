/* The one rule for names that slowpath copies into file names, tool
 * arguments (tgtadm --params, dmsetup) and gnuplot scripts: topology
 * names, path labels, rw modes, selectors, disk names. A name that
 * passes holds nothing any of them treats as syntax. */
#ifndef SP_NAME_H
#define SP_NAME_H

#define SP_NAME_MAX 63

/* 1 when s is 1..SP_NAME_MAX characters of [A-Za-z0-9._+-] starting
 * with a letter or digit (so never an option, "." or ".."), else 0. */
int sp_name_ok(const char *s);

/* What sp_name_ok wants, for messages. */
#define SP_NAME_RULE "1 to 63 letters, digits or . _ + -, starting with a " \
		     "letter or digit"

#endif
