/* A filled case, shared by the tests of the comparisons (measure/) and
 * of the renderers (report/): three paths, the third slow, built from
 * the seed-shaped diskstats snapshots. Static on purpose: each test
 * binary has its own. Include after cmocka.h. */
#ifndef SP_TEST_CASE_FIXTURE_H
#define SP_TEST_CASE_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file.h"
#include "harness/measure/case_result.h"

static char *read_fixture(const char *rel)
{
	const char *src = getenv("SRCDIR");
	char path[1024];
	char *text = NULL;

	snprintf(path, sizeof(path), "%s/tests/fixtures/%s", src ? src : ".", rel);
	assert_int_equal(sp_file_read(path, SP_FILE_TEXT_MAX, &text, NULL), 0);
	return text;
}

/* A case as `run` would build it: names and marks, then sp_case_fill
 * on the seed-shaped snapshots and fio's (hand-made disk_util) JSON. */
static void filled_case(struct sp_case_result *c, const char *selector)
{
	char *b = read_fixture("diskstats/seed-randread-before.txt");
	char *a = read_fixture("diskstats/seed-randread-after.txt");
	char *f = read_fixture("fio/handmade-dm-disk-util.json");

	memset(c, 0, sizeof(*c));
	strcpy(c->topology, "three");
	strcpy(c->selector, selector);
	strcpy(c->rw, "randread");
	c->bs = 4096;
	c->iodepth = 1;
	c->numjobs = 1;
	c->n_paths = 3;
	strcpy(c->path[0].name, "sda");
	strcpy(c->path[1].name, "sdb");
	strcpy(c->path[2].name, "sdc");
	c->slow[2] = 1;
	c->has_map = 1;
	strcpy(c->map.name, "dm-0");
	assert_int_equal(sp_case_fill(c, b, a, f), 0);
	free(a);
	free(b);
	free(f);
}

/* ST and HST at the same point; with shifted, HST has moved 10000
 * reads off the slow path onto the first and doubled its IOPS. */
static void filled_pair(struct sp_case_result *st, struct sp_case_result *hst,
			int shifted)
{
	filled_case(st, "service-time");
	filled_case(hst, "historical-service-time");
	if (!shifted)
		return;
	hst->path[0].v[SP_DS_READS] += 10000;
	hst->path[2].v[SP_DS_READS] -= 10000;
	hst->fio.dir[SP_FIO_READ].iops *= 2;
}

#endif
