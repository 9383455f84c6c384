#ifndef SP_EXITCODES_H
#define SP_EXITCODES_H

/* The contract every slowpath command keeps with scripts and make. */
enum sp_exit {
	SP_EXIT_OK = 0,
	SP_EXIT_USAGE = 1,	/* bad usage or bad input */
	SP_EXIT_ENV = 2,	/* something the environment lacks */
	SP_EXIT_RUNTIME = 3,	/* it was tried and failed */
};

/* Maps a library's -errno onto the exit contract. */
int sp_exit_from_errno(int neg_errno);

#endif
