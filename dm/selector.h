/* The one table of dm-multipath path selectors slowpath knows: the short
 * name topology files and the CLI use, the name the kernel registers,
 * the module that provides it and the arguments its table line takes.
 * Everything that names a selector asks here, so a new selector is one
 * row in dm/selector.c. */
#ifndef SP_DM_SELECTOR_H
#define SP_DM_SELECTOR_H

enum sp_selector {
	SP_SEL_ST,	/* service-time */
	SP_SEL_HST,	/* historical-service-time */
	SP_SEL_QL,	/* queue-length */
	SP_SEL_RR,	/* round-robin */
	SP_SEL_COUNT,
};

/* Arrays, not pointers, so a static initialiser elsewhere (an option's
 * default) can name sp_selectors[k].kernel_name as a constant. */
#define SP_SEL_SHORT_MAX 8
#define SP_SEL_NAME_MAX 32

struct sp_selector_info {
	char short_name[SP_SEL_SHORT_MAX];	/* "st" */
	char kernel_name[SP_SEL_NAME_MAX];	/* "service-time" */
	char module[SP_SEL_NAME_MAX];		/* "dm_service_time" */
	/* Per-path arguments a table line carries: repeat_count, then
	 * (service-time) relative_throughput. */
	unsigned int path_args;
	/* Selector arguments it accepts before the paths (HST:
	 * base_weight, threshold_multiplier); 0 for none. */
	unsigned int selector_args;
};

/* Indexed by enum sp_selector. */
extern const struct sp_selector_info sp_selectors[SP_SEL_COUNT];
/* The short names in enum order, NULL-terminated: an opttab
 * SP_OPT_ENUM choices list. Map a chosen index back with
 * sp_selector_by_short(), not a cast. */
extern const char *const sp_selector_short_names[SP_SEL_COUNT + 1];

/* NULL for a kind outside the table. */
const struct sp_selector_info *sp_selector_info(enum sp_selector kind);

/* Short or kernel name. 0 or -EINVAL. */
int sp_selector_parse(const char *name, enum sp_selector *out);
int sp_selector_by_short(const char *short_name, enum sp_selector *out);
int sp_selector_by_kernel(const char *kernel_name, enum sp_selector *out);

/* "?" for a kind outside the table. */
const char *sp_selector_kernel_name(enum sp_selector kind);
const char *sp_selector_short_name(enum sp_selector kind);
const char *sp_selector_module(enum sp_selector kind);

#endif
