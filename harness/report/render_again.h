/* `slowpath report DIR` once its options are parsed: the run's cases
 * rendered again on stdout (ordered, base vs other compared, the
 * timelines' tables after text), and with plot its plots drawn. */
#ifndef SP_RENDER_AGAIN_H
#define SP_RENDER_AGAIN_H

struct sp_render_again {
	int format;			/* enum sp_fmt */
	const char *base, *other;	/* selectors compared */
	int plot;
	const char *plot_dir;		/* NULL: DIR/plots */
};

/* An exit code: 1 for a bad or refused result file. */
int sp_render_run_again(const char *dir, const struct sp_render_again *a);

#endif
