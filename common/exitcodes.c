#include "common/exitcodes.h"

#include <errno.h>

int sp_exit_from_errno(int neg_errno)
{
	switch (-neg_errno) {
	case 0:
		return SP_EXIT_OK;
	case EINVAL:
	case ERANGE:
	case E2BIG:
		return SP_EXIT_USAGE;
	case ENOENT:
	case ENODEV:
	case EPERM:
	case EACCES:
	case ENOSYS:
	case EOPNOTSUPP:
	case ENOPKG:
		return SP_EXIT_ENV;
	default:
		return SP_EXIT_RUNTIME;
	}
}
