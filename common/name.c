/* Safe names: see name.h. */
#include "common/name.h"

#include <string.h>

static int alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

int sp_name_ok(const char *s)
{
	size_t i;

	if (!s || !alnum(s[0]))
		return 0;
	for (i = 0; s[i]; i++)
		if (i >= SP_NAME_MAX || !(alnum(s[i]) || strchr("._+-", s[i])))
			return 0;
	return 1;
}
