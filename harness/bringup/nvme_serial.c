/* nvme-tcp's serial stage as netem rates; see nvme_serial.h. */
#include "harness/bringup/nvme_serial.h"

#include <errno.h>
#include <string.h>

#define NSEC_PER_SEC 1000000000ull

int sp_nvme_serial_rate(int64_t service_ns, uint32_t wire_bytes,
			uint64_t *bps)
{
	uint64_t bytes_per_s;

	if (service_ns <= 0 || !wire_bytes)
		return -EINVAL;
	/* rounded to the nearest: wire_bytes x 1e9 fits 2^63 for any u32 */
	bytes_per_s = ((uint64_t)wire_bytes * NSEC_PER_SEC +
		       (uint64_t)service_ns / 2) / (uint64_t)service_ns;
	/* netem_words.c's bounds: 8bit, and bytes in a u32 */
	if (!bytes_per_s || bytes_per_s > UINT32_MAX)
		return -ERANGE;
	*bps = bytes_per_s * 8;
	return 0;
}

int sp_nvme_serial_path(const struct sp_state_path *p)
{
	return p->servers > 0 && p->service_ns > 0 &&
	       p->mech == SP_MECH_NETEM;
}

int sp_nvme_serial_spec(const struct sp_state_path *p, int host_end,
			struct sp_netem_spec *spec)
{
	memset(spec, 0, sizeof(*spec));
	spec->has = SP_NETEM_HAS_RATE;
	return sp_nvme_serial_rate(p->service_ns,
				   host_end ? SP_NVME_SERIAL_WRITE_WIRE
					    : SP_NVME_SERIAL_READ_WIRE,
				   &spec->rate_bps);
}
