/* The second published reference: the HST cover letter's table
 * (harness/repro/data/hst-cover-2020.tsv), only the slow path's share
 * per (iodepth, selector). It is loaded as a struct sp_reference whose
 * cases have the slow path's share and the rest split equally over
 * the fast paths, as 500M of 4k I/O, so the scoring of repro_compare.c
 * (TVD, slow share, verdict) applies unchanged. Pure. */
#ifndef SP_REF_COVER_LETTER_H
#define SP_REF_COVER_LETTER_H

#include <stddef.h>

#include "harness/repro/reference.h"

#define SP_COVER_DEFAULT_DATA "harness/repro/data/hst-cover-2020.tsv"
/* What the cover letter says a throughput-proportional split gives. */
#define SP_COVER_PROPORTIONAL 0.076

/* text: the TSV. Each row's topology must be in topos (its slow paths
 * are the topology's). 0, or -EINVAL with one "ORIGIN:LINE: ..." error
 * (nothing half-loaded). */
int sp_cover_parse(const char *text, const char *origin,
		   const struct sp_ref_topologies *topos,
		   struct sp_reference *ref);
int sp_cover_load(const char *path, const struct sp_ref_topologies *topos,
		  struct sp_reference *ref);

#endif
