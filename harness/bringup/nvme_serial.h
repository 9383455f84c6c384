/* nvme-tcp's serial stage (docs/nvme.md, "Serial service"): nvmet has
 * no delay store, so a serial path's service is netem's rate on its
 * two veths, set so that the bytes one 4 KiB I/O puts on its data
 * direction take the path's service to send. netem's rate is one
 * transmitter per qdisc, a FIFO: a path then serves one I/O at a time
 * per direction and its latency grows with its own queue, as the tgt
 * delay store's servers = 1 does. Pure. */
#ifndef SP_NVME_SERIAL_H
#define SP_NVME_SERIAL_H

#include <stdint.h>

#include "harness/bringup/state.h"
#include "netem/netem.h"

/* The block size the service is set for; other sizes take their
 * bytes' time (8 KiB about twice as long). */
#define SP_NVME_SERIAL_BS 4096
/* What one 4 KiB I/O puts on its data direction, as netem counts it
 * (the qdisc's Sent bytes over 1000 I/Os, uml lab, Linux 6.1, MTU
 * 1500, no digests): a read's C2H data PDU and response capsule in
 * three TCP segments on the target's veth (4096 + 2 x 24 PDU bytes +
 * 3 x 66 Ethernet/IP/TCP), a write's command capsule with its data
 * in-capsule on the host's (4096 + 72 + 3 x 66). The other direction
 * carries 102 bytes per read (the command) and 156 per write (the
 * response and an ACK): 2.3 % and 3.6 % of the service, latency that
 * does not queue behind the data. */
#define SP_NVME_SERIAL_READ_WIRE 4342
#define SP_NVME_SERIAL_WRITE_WIRE 4366

/* bits per second (a whole number of bytes per second: netem keeps
 * bytes) at which wire_bytes take service_ns. 0, or -EINVAL for a
 * service or size of 0, -ERANGE outside netem's 8bit..34gbit. */
int sp_nvme_serial_rate(int64_t service_ns, uint32_t wire_bytes,
			uint64_t *bps);

/* 1 when p is a serial nvme-tcp path (servers on a netem path: iSCSI
 * serves in the delay store, whose paths are mechanism backend). */
int sp_nvme_serial_path(const struct sp_state_path *p);

/* The netem of a serial path's end: the target's (reads' data) with
 * host_end 0, the host's (writes' data) with 1; the rate only, no
 * delay. 0, or -errno of sp_nvme_serial_rate. */
int sp_nvme_serial_spec(const struct sp_state_path *p, int host_end,
			struct sp_netem_spec *spec);

#endif
