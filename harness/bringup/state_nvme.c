/* The journal's nvme-tcp records (docs/nvme.md): the transport and the
 * subsystem's NQN, the loop device under the namespace, the namespace's
 * multipath disk. Their values reach configfs paths and nvme-cli's argv,
 * so each must have its one expected shape. Kept apart from
 * state_parse.c, which replays the rest. */
#include "harness/bringup/state.h"

#include "common/strbuf.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* prefix, then at least one digit, then (when infix) infix and digits */
static int numbered(const char *s, const char *prefix, const char *infix)
{
	size_t n = strlen(prefix), d;

	if (strncmp(s, prefix, n))
		return 0;
	s += n;
	d = strspn(s, "0123456789");
	if (!d || d > 6)
		return 0;
	s += d;
	if (!infix)
		return !*s;
	n = strlen(infix);
	if (strncmp(s, infix, n))
		return 0;
	s += n;
	d = strspn(s, "0123456789");
	return d && d <= 6 && !s[d];
}

int sp_state_nqn_ok(const char *nqn)
{
	size_t n = strlen(SP_UP_NQN_PREFIX), len = strlen(nqn);

	return len > n && len < 224 && !strncmp(nqn, SP_UP_NQN_PREFIX, n) &&
	       strspn(nqn + n, "abcdefghijklmnopqrstuvwxyz"
			       "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") ==
		       len - n;
}

int sp_state_loop_ok(const char *dev)
{
	return numbered(dev, "/dev/loop", NULL);
}

/* digits at *s (1 to 6 of them), *s moved past them; 0 when none */
static int digits(const char **s)
{
	size_t d = strspn(*s, "0123456789");

	*s += d;
	return d && d <= 6;
}

int sp_state_nvme_disk_ok(const char *disk)
{
	const char *s = disk + 4;

	if (strncmp(disk, "nvme", 4) || !digits(&s))
		return 0;
	if (*s == 'c' && (++s, !digits(&s)))
		return 0;
	return *s++ == 'n' && digits(&s) && !*s;
}

static int copy(char *dst, size_t len, const char *src)
{
	if (strlen(src) >= len)
		return -1;
	strcpy(dst, src);
	return 0;
}

/* "solo N HEAD MAJ:MIN DISK" */
static int parse_solo(struct sp_state *st, char **t, int n, char *why,
		      size_t whylen)
{
	struct sp_state_path *p = n == 5 ? sp_state_path_by_number(st, t[1])
					 : NULL;

	if (!p || !sp_state_nvme_disk_ok(t[2]) || !sp_state_nvme_disk_ok(t[4]) ||
	    sscanf(t[3], "%u:%u", &p->solo_major, &p->solo_minor) != 2)
		return sp_errf(why, whylen, -EINVAL, "bad solo line");
	copy(p->solo_head, sizeof(p->solo_head), t[2]);
	copy(p->solo_disk, sizeof(p->solo_disk), t[4]);
	p->has_solo = 1;
	return 0;
}

int sp_state_parse_nvme(struct sp_state *st, char **t, int n, char *why,
			size_t whylen)
{
	if (!strcmp(t[0], "transport")) {
		if (n != 3 || strcmp(t[1], "nvme-tcp") || !sp_state_nqn_ok(t[2]))
			return sp_errf(why, whylen, -EINVAL, "bad transport "
				       "line: want 'transport nvme-tcp %s...'",
				       SP_UP_NQN_PREFIX);
		st->transport = SP_TRANSPORT_NVME_TCP;
		return copy(st->nqn, sizeof(st->nqn), t[2]);
	}
	if (!strcmp(t[0], "loop")) {
		if (n != 2 || !sp_state_loop_ok(t[1]))
			return sp_errf(why, whylen, -EINVAL, "bad loop device "
				       "'%s'", n > 1 ? t[1] : "");
		return copy(st->loop_dev, sizeof(st->loop_dev), t[1]);
	}
	if (!strcmp(t[0], "solo"))
		return parse_solo(st, t, n, why, whylen);
	if (n != 4 || !numbered(t[1], "nvme-subsys", NULL) ||
	    !sp_state_nvme_disk_ok(t[2]) ||
	    sscanf(t[3], "%u:%u", &st->head_major, &st->head_minor) != 2)
		return sp_errf(why, whylen, -EINVAL, "bad head line");
	copy(st->subsys, sizeof(st->subsys), t[1]);
	copy(st->head, sizeof(st->head), t[2]);
	st->has_head = 1;
	return 0;
}

static void fmt_solo(const struct sp_state_path *p,
			      struct sp_strbuf *sb)
{
	sp_strbuf_printf(sb, "solo %u %s %u:%u %s\n", p->index, p->solo_head,
			 p->solo_major, p->solo_minor, p->solo_disk);
}

int sp_state_fmt_nvme(const struct sp_state *st, char *buf, size_t len)
{
	struct sp_strbuf sb = SP_STRBUF(buf, len);
	size_t i;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	if (st->transport != SP_TRANSPORT_NVME_TCP)
		return 0;
	sp_strbuf_printf(&sb, "transport nvme-tcp %s\n", st->nqn);
	if (st->loop_dev[0])
		sp_strbuf_printf(&sb, "loop %s\n", st->loop_dev);
	if (st->has_head)
		sp_strbuf_printf(&sb, "head %s %s %u:%u\n", st->subsys,
				 st->head, st->head_major, st->head_minor);
	for (i = 0; i < st->npaths; i++)
		if (st->paths[i].has_solo)
			fmt_solo(&st->paths[i], &sb);
	return sb.overflow ? -ENOSPC : 0;
}
