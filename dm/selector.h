/* The one table of dm-multipath path selectors slowpath knows: the short
 * name topology files and the CLI use, the name the kernel registers,
 * the module that provides it and the arguments its table line takes.
 * Everything that names a selector asks here, so a new stock selector is
 * one row in dm/selector.c; a selector the user built (slowpath selector
 * build) joins the same table at run time through sp_selector_register. */
#ifndef SP_DM_SELECTOR_H
#define SP_DM_SELECTOR_H

enum sp_selector {
	SP_SEL_ST,	/* service-time */
	SP_SEL_HST,	/* historical-service-time */
	SP_SEL_QL,	/* queue-length */
	SP_SEL_RR,	/* round-robin */
	SP_SEL_IOA,	/* io-affinity */
	/* NVMe native multipath's iopolicies (docs/nvme.md): no map, a
	 * word in /sys/class/nvme-subsystem/nvme-subsysN/iopolicy */
	SP_SEL_NUMA,	/* numa */
	SP_SEL_NRR,	/* round-robin ("rr" on an nvme-tcp topology) */
	SP_SEL_QD,	/* queue-depth (6.12 on) */
	SP_SEL_COUNT,	/* the stock ones; registered ones follow */
};

/* Registered selectors take the kinds SP_SEL_COUNT.. in the order they
 * were registered. */
#define SP_SEL_MAX_REGISTERED 16
#define SP_SEL_TABLE_MAX (SP_SEL_COUNT + SP_SEL_MAX_REGISTERED)

/* Arrays, not pointers, so a static initialiser elsewhere (an option's
 * default) can name sp_selectors[k].kernel_name as a constant. A
 * registered selector's short name is its kernel name. */
#define SP_SEL_SHORT_MAX 32
#define SP_SEL_NAME_MAX 32
#define SP_SEL_PATH_MAX 256
#define SP_SEL_SRCVERSION_MAX 32

/* What the per-path arguments of a table line are. */
enum sp_sel_path_arg {
	SP_SEL_ARG_REPEAT,	/* repeat_count [relative_throughput] */
	SP_SEL_ARG_CPUMASK,	/* one hex CPU mask (io-affinity) */
};

/* Which multipath does the choosing: a dm-multipath path selector (a
 * map's table line) or an NVMe native iopolicy (sysfs). */
enum sp_sel_family { SP_SEL_FAMILY_DM, SP_SEL_FAMILY_NVME };

struct sp_selector_info {
	char short_name[SP_SEL_SHORT_MAX];	/* "st" */
	char kernel_name[SP_SEL_NAME_MAX];	/* "service-time" */
	char module[SP_SEL_NAME_MAX];		/* "dm_service_time" */
	/* Per-path arguments a table line carries: repeat_count, then
	 * (service-time) relative_throughput; io-affinity's one is a
	 * CPU mask (path_arg). */
	unsigned int path_args;
	/* Selector arguments it accepts before the paths (HST:
	 * base_weight, threshold_multiplier); 0 for none. */
	unsigned int selector_args;
	enum sp_sel_path_arg path_arg;
	/* 1: its choice weighs what each path did before (HST's moving
	 * averages), so a short run meets it cold and a warm-up matters;
	 * a registered selector is assumed to. 0: it sees in-flight
	 * counts or a rotation only. */
	int keeps_history;
	/* Registered selectors: the .ko loaded with insmod (not modprobe,
	 * it is in no module tree); "" for the stock ones. */
	char ko_path[SP_SEL_PATH_MAX];
	/* Registered selectors: the .ko's .modinfo srcversion (modpost's
	 * hash of its source), which /sys/module/<module>/srcversion shows
	 * for the loaded one; "" unknown. */
	char srcversion[SP_SEL_SRCVERSION_MAX];
	enum sp_sel_family family;	/* registered ones: dm */
};

/* The stock selectors, indexed by enum sp_selector. */
extern const struct sp_selector_info sp_selectors[SP_SEL_COUNT];
/* The short names in enum order, stock then registered,
 * NULL-terminated: an opttab SP_OPT_ENUM choices list. Map a chosen
 * index back with sp_selector_by_short(), not a cast. */
extern const char *sp_selector_short_names[SP_SEL_TABLE_MAX + 1];

/* Stock and registered selectors in the table now. */
unsigned int sp_selector_count(void);

/* NULL for a kind outside the table. */
const struct sp_selector_info *sp_selector_info(enum sp_selector kind);

/* Adds a selector whose module (a .ko at ko_path) registers
 * kernel_name; its table line takes one per-path argument (the repeat
 * count, as round-robin's) and no selector arguments. kernel_name must
 * pass sp_name_ok, fit SP_SEL_NAME_MAX, and be no name already in the
 * table; module likewise. Registering the same name, module and path
 * again returns the kind it has. 0, -EINVAL (bad or clashing name),
 * -ENOSPC (table full). */
int sp_selector_register(const char *kernel_name, const char *module,
			 const char *ko_path, enum sp_selector *out);
/* Records a registered kind's srcversion (sp_selector_ko_srcversion).
 * 0, or -EINVAL (a stock kind, or not a 1..SP_SEL_SRCVERSION_MAX-1
 * character string of letters and digits). */
int sp_selector_set_srcversion(enum sp_selector kind, const char *srcversion);
/* Empties the registered part (tests). */
void sp_selector_unregister_all(void);

/* Short or kernel name. 0 or -EINVAL. */
int sp_selector_parse(const char *name, enum sp_selector *out);
int sp_selector_by_short(const char *short_name, enum sp_selector *out);
int sp_selector_by_kernel(const char *kernel_name, enum sp_selector *out);

/* "?" for a kind outside the table. */
const char *sp_selector_kernel_name(enum sp_selector kind);
const char *sp_selector_short_name(enum sp_selector kind);
const char *sp_selector_module(enum sp_selector kind);

/* kind for a topology whose multipath is family: itself when it is of
 * that family, else the row of the other family with the same kernel
 * name (dm's round-robin and NVMe's are both "round-robin", so `rr`
 * means the one the topology has). 0, or -EINVAL when family has no
 * such selector (st over native NVMe multipath). */
int sp_selector_for_family(enum sp_selector kind, enum sp_sel_family family,
			   enum sp_selector *out);
enum sp_sel_family sp_selector_family(enum sp_selector kind);

/* "st, hst, ql, rr, ioa" and the registered names, for messages. */
const char *sp_selector_list(void);

#endif
