/* The checks of an output file before any work: its folder exists and is
 * writable, it is no folder, and no input or other output names it
 * (docs/cli.md, "Conventions"). */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

/* The folder a file path names: the text before its last '/', "/" for a
 * file at the root, "." for none. */
const char *
cli_folder_of(const char *path, char *buf, size_t cap)
{
	const char *slash = strrchr(path, '/');
	snprintf(buf, cap, "%.*s", slash ? (slash == path ? 1 : (int)(slash - path)) : 1, slash ? path : ".");
	return buf;
}

/* "FLAG: " then `full` when it fits the 255 bytes; else `out` once, by the
 * one rule, then `text`: two quotes of a deep path passed 700 bytes
 * (docs/architecture.md, "Errors"). */
static int
folder_refusal(const char *cmd, const char *flag, const char *out, const char *full, const char *text)
{
	char msg[WC_ERROR_MSG_MAX];
	int k = snprintf(msg, sizeof msg, "%.64s: ", flag);
	if (k >= 0 && (size_t)k + strlen(full) < sizeof msg)
		return cli_usage_error(cmd, "%s%s", msg, full);
	wc_error_format_path(msg + k, sizeof msg - (size_t)k, out, "%s", text);
	return cli_usage_error(cmd, "%s", msg);
}

/* The folder `out` is written in must exist and be a folder, and `out`
 * itself not be one: the file is written after all the work, which a
 * missing folder used to fail there, exit 1 with the work lost
 * (docs/cli.md, "Conventions"). */
static int
check_folder(const char *cmd, const char *flag, const char *out)
{
	struct stat st;
	char dir[PATH_MAX], full[3 * PATH_MAX], text[160];
	cli_folder_of(out, dir, sizeof dir);
	if (stat(dir, &st) != 0) {
		if (errno == ENOENT) {
			snprintf(full, sizeof full, "folder '%s' does not exist (for '%s')", dir, out);
			return folder_refusal(cmd, flag, out, full, ": its folder does not exist");
		}
		snprintf(full, sizeof full, "folder '%s': %s (for '%s')", dir, strerror(errno), out);
		snprintf(text, sizeof text, ": its folder: %s", strerror(errno));
		return folder_refusal(cmd, flag, out, full, text);
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(full, sizeof full, "'%s' is not a folder (for '%s')", dir, out);
		return folder_refusal(cmd, flag, out, full, ": its folder is not a folder");
	}
	/* The atomic writer makes its temporary file in the folder: one this
	 * user cannot write is refused now, not after the work -- and not
	 * after a command's first outputs are written and its next fails. */
	if (access(dir, W_OK | X_OK) != 0) {
		snprintf(full, sizeof full, "folder '%s' is not writable: %s (for '%s')", dir, strerror(errno), out);
		snprintf(text, sizeof text, ": its folder is not writable: %s", strerror(errno));
		return folder_refusal(cmd, flag, out, full, text);
	}
	if (stat(out, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(full, sizeof full, "'%s' is a folder (give a file name in it)", out);
		return folder_refusal(cmd, flag, out, full, ": is a folder (give a file name in it)");
	}
	return CLI_OK;
}

int
cli_check_output(const char *cmd, const char *flag, const char *out, const char *const *inputs, size_t n)
{
	struct stat so, si;
	if (out && check_folder(cmd, flag, out) != CLI_OK)
		return CLI_USAGE;
	/* An output that does not exist yet cannot be an input. */
	if (!out || stat(out, &so) != 0)
		return CLI_OK;
	for (size_t i = 0; i < n; i++)
		/* The same file by device and inode, whatever the path: a link or
		 * "./RUNS.csv" would pass a comparison of names. */
		if (inputs[i] && stat(inputs[i], &si) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino)
			return cli_usage_error(cmd, "%s: '%s' is the input '%s'; writing it would destroy the input "
			                       "(give another output file)", flag, out, inputs[i]);
	return CLI_OK;
}

/* Two paths name one file: the same device and inode when both exist,
 * else the same text once each directory is resolved ("./a.csv" and
 * "a.csv" are one file before either is written). */
static int
same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	char ra[PATH_MAX], rb[PATH_MAX], da[PATH_MAX], db[PATH_MAX];
	const char *ba = strrchr(a, '/'), *bb = strrchr(b, '/');
	if (!realpath(cli_folder_of(a, da, sizeof da), ra) || !realpath(cli_folder_of(b, db, sizeof db), rb))
		return strcmp(a, b) == 0;
	return strcmp(ra, rb) == 0 && strcmp(ba ? ba + 1 : a, bb ? bb + 1 : b) == 0;
}

int
cli_check_outputs(const char *cmd, const char *const *flags, const char *const *outs, size_t n_out,
                  const char *const *inputs, size_t n_in)
{
	for (size_t i = 0; i < n_out; i++) {
		if (!outs[i])
			continue;
		if (cli_check_output(cmd, flags[i], outs[i], inputs, n_in) != CLI_OK)
			return CLI_USAGE;
		for (size_t j = 0; j < i; j++)
			if (outs[j] && same_file(outs[i], outs[j]))
				return cli_usage_error(cmd, "%s and %s name one file '%s'; the second would overwrite the "
				                       "first (give two files)", flags[j], flags[i], outs[i]);
	}
	return CLI_OK;
}
