/* The published 2020 table and the topologies it names, loaded once per
 * test binary as a cmocka group setup; shared by the tests of the
 * comparison and of the point judgement. Static on purpose: each test
 * binary has its own. Include after cmocka.h. */
#ifndef SP_TEST_REF_FIXTURE_H
#define SP_TEST_REF_FIXTURE_H

#include <stdio.h>

#include "harness/repro/reference.h"

static struct sp_reference reference;
static struct sp_ref_topologies topos;

static int load_reference(void **state)
{
	char err[512];

	(void)state;
	if (sp_ref_topologies_load("topologies", &topos, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	return sp_ref_load(SP_REF_DEFAULT_DATA, &topos, &reference) ? -1 : 0;
}

static int free_reference(void **state)
{
	(void)state;
	sp_ref_free(&reference);
	return 0;
}

#endif
