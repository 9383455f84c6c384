/* `slowpath reproduce nvme-latency-2025` (docs/nvme.md): topologies/
 * nvme2.ini (two nvme-tcp paths, the first 30 ms slower) up, NVMe's
 * iopolicies numa and round-robin (queue-depth where the kernel has it)
 * in read, write and rw, down; the ratios between the policies scored
 * against the published table (ref_nvme.h). The effects are struct
 * sp_repro_ops's (the user's commands in harness/cli/repro_real.c;
 * mocks in tests/unit/harness/repro/test_repro_nvme.c). */
#ifndef SP_REPRO_NVME_H
#define SP_REPRO_NVME_H

#include <stddef.h>
#include <stdint.h>

#include "harness/repro/ref_nvme.h"
#include "harness/repro/repro_ops.h"

struct sp_repro_nvme_opts {
	const char *topology;	/* a name or file: 2 nvme-tcp paths */
	int64_t ios, iodepth;	/* per case */
	const char *kernel;	/* uname -r: whether queue-depth is there */
};

/* The run into out (OUT/numa, OUT/rest), each case's MiB/s and slow
 * path's share said through ops->say, the score into text and
 * OUT/score.txt (a new file only). 0, -EINVAL (a topology not of two
 * latency nvme-tcp paths), or -errno of what failed, said. */
int sp_repro_nvme_do(const struct sp_repro_ops *ops,
		     const struct sp_repro_nvme_opts *o,
		     const struct sp_nvref_table *pub, const char *out,
		     char *text, size_t len);

#endif
