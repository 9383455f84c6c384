// SPDX-License-Identifier: GPL-2.0
/*
 * latency-random: an example dm-multipath path selector for slowpath's
 * "bring your own selector" (examples/selectors/README.md).
 *
 * Each path keeps a moving average of the time its I/Os took from start
 * to completion; every I/O goes to a path drawn at random with weight
 * 1 / average, so a path twice as fast gets about twice the I/O. Unlike
 * service-time it never sends everything to the one best path, so a
 * slow path keeps being measured and is taken back as soon as it
 * recovers.
 *
 * Table line: latency-random 0 <#paths> 1 <dev> <repeat_count> ...
 * (one per-path argument, accepted for the same grammar as round-robin
 * and otherwise ignored).
 *
 * Build:  slowpath selector build dm-ps-latency-random.c [--kernel 6.12]
 */
#include "dm-path-selector.h"

#include <linux/device-mapper.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#define DM_MSG_PREFIX "multipath latency-random"
#define LR_NAME "latency-random"

/* Averages below this are taken as this: the weights stay finite and a
 * path that has only been idle is not infinitely attractive. */
#define LR_FLOOR_NS 1000ULL
/* Weight numerator: 2^40 / ns keeps 1/latency precise for latencies
 * from a microsecond to many seconds within a u64 sum of 64 paths. */
#define LR_WEIGHT_ONE (1ULL << 40)
/* New samples count 1/8 (shift 3), as a small exponential average. */
#define LR_EWMA_SHIFT 3

struct lr_path {
	struct list_head list;
	struct dm_path *path;
	u64 avg_ns;		/* 0 until the first completion */
	u64 ios;		/* completed I/Os, for the status line */
};

struct lr_selector {
	spinlock_t lock;
	struct list_head valid;
	struct list_head failed;
	unsigned int nr_valid;
};

static int lr_create(struct path_selector *ps, unsigned int argc, char **argv)
{
	struct lr_selector *s;

	if (argc)
		return -EINVAL;
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	spin_lock_init(&s->lock);
	INIT_LIST_HEAD(&s->valid);
	INIT_LIST_HEAD(&s->failed);
	ps->context = s;
	return 0;
}

static void lr_free_list(struct list_head *head)
{
	struct lr_path *p, *next;

	list_for_each_entry_safe(p, next, head, list) {
		list_del(&p->list);
		kfree(p);
	}
}

static void lr_destroy(struct path_selector *ps)
{
	struct lr_selector *s = ps->context;

	lr_free_list(&s->valid);
	lr_free_list(&s->failed);
	kfree(s);
	ps->context = NULL;
}

static int lr_add_path(struct path_selector *ps, struct dm_path *path,
		       int argc, char **argv, char **error)
{
	struct lr_selector *s = ps->context;
	struct lr_path *p;
	unsigned int repeat;
	unsigned long flags;

	if (argc > 1) {
		*error = "latency-random ps: at most one path argument";
		return -EINVAL;
	}
	if (argc == 1 && kstrtouint(argv[0], 10, &repeat)) {
		*error = "latency-random ps: bad repeat_count";
		return -EINVAL;
	}
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p) {
		*error = "latency-random ps: out of memory";
		return -ENOMEM;
	}
	p->path = path;
	path->pscontext = p;
	spin_lock_irqsave(&s->lock, flags);
	list_add_tail(&p->list, &s->valid);
	s->nr_valid++;
	spin_unlock_irqrestore(&s->lock, flags);
	return 0;
}

static void lr_fail_path(struct path_selector *ps, struct dm_path *path)
{
	struct lr_selector *s = ps->context;
	struct lr_path *p = path->pscontext;
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	list_move(&p->list, &s->failed);
	s->nr_valid--;
	spin_unlock_irqrestore(&s->lock, flags);
}

static int lr_reinstate_path(struct path_selector *ps, struct dm_path *path)
{
	struct lr_selector *s = ps->context;
	struct lr_path *p = path->pscontext;
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	list_move_tail(&p->list, &s->valid);
	s->nr_valid++;
	spin_unlock_irqrestore(&s->lock, flags);
	return 0;
}

static u64 lr_weight(const struct lr_path *p)
{
	u64 avg = READ_ONCE(p->avg_ns);

	return div64_u64(LR_WEIGHT_ONE, max(avg, LR_FLOOR_NS));
}

static struct dm_path *lr_select_path(struct path_selector *ps,
				      size_t nr_bytes)
{
	struct lr_selector *s = ps->context;
	struct lr_path *p, *chosen = NULL;
	unsigned long flags;
	u64 total = 0, pick;

	spin_lock_irqsave(&s->lock, flags);
	list_for_each_entry(p, &s->valid, list)
		total += lr_weight(p);
	if (total) {
		/* a uniform point in [0, total) */
		pick = mul_u64_u32_shr(total, get_random_u32(), 32);
		list_for_each_entry(p, &s->valid, list) {
			u64 w = lr_weight(p);

			if (pick < w) {
				chosen = p;
				break;
			}
			pick -= w;
		}
		if (!chosen)
			chosen = list_last_entry(&s->valid, struct lr_path, list);
	}
	spin_unlock_irqrestore(&s->lock, flags);
	return chosen ? chosen->path : NULL;
}

static int lr_end_io(struct path_selector *ps, struct dm_path *path,
		     size_t nr_bytes, u64 start_time)
{
	struct lr_path *p = path->pscontext;
	u64 now = ktime_get_ns(), took, avg;

	/* start_time is ktime_get_ns() at dispatch; 0 when unknown */
	if (!start_time || now < start_time)
		return 0;
	took = now - start_time;
	avg = READ_ONCE(p->avg_ns);
	avg = avg ? avg - (avg >> LR_EWMA_SHIFT) + (took >> LR_EWMA_SHIFT) : took;
	WRITE_ONCE(p->avg_ns, avg);
	WRITE_ONCE(p->ios, READ_ONCE(p->ios) + 1);
	return 0;
}

static int lr_status(struct path_selector *ps, struct dm_path *path,
		     status_type_t type, char *result, unsigned int maxlen)
{
	struct lr_path *p;
	unsigned int sz = 0;

	if (!path) {
		DMEMIT("0 ");
		return sz;
	}
	p = path->pscontext;
	switch (type) {
	case STATUSTYPE_INFO:
		DMEMIT("%llu %llu ", (unsigned long long)READ_ONCE(p->avg_ns),
		       (unsigned long long)READ_ONCE(p->ios));
		break;
	case STATUSTYPE_TABLE:
		DMEMIT("1 ");
		break;
	default:
		break;
	}
	return sz;
}

static struct path_selector_type lr_ps = {
	.name		= LR_NAME,
	.module		= THIS_MODULE,
	.table_args	= 1,
	.info_args	= 2,
	.create		= lr_create,
	.destroy	= lr_destroy,
	.add_path	= lr_add_path,
	.fail_path	= lr_fail_path,
	.reinstate_path	= lr_reinstate_path,
	.select_path	= lr_select_path,
	.end_io		= lr_end_io,
	.status		= lr_status,
};

static int __init lr_init(void)
{
	int r = dm_register_path_selector(&lr_ps);

	if (r < 0)
		DMERR("register failed %d", r);
	return r;
}

static void __exit lr_exit(void)
{
	dm_unregister_path_selector(&lr_ps);
}

module_init(lr_init);
module_exit(lr_exit);

MODULE_DESCRIPTION(DM_NAME " latency-weighted random path selector (slowpath example)");
MODULE_LICENSE("GPL");
