#!/bin/sh
# Generate wattcast(1) from the help texts (help2man): the top-level
# --help becomes the synopsis and description, and every command's
# --help and every subcommand's own --help (fit capacity, ingest
# --prometheus, ...) a section of its own, so the man page can never
# drift from what the binary prints (docs/cli.md, "Install").
# usage: sh cli/manpage.sh PATH/TO/wattcast OUT.1
set -eu
bin=$1
out=$2
inc=$(mktemp)
seen=$(mktemp)
trap 'rm -f "$inc" "$seen"' EXIT

# A help text as literal roff: backslashes doubled, and a line that
# starts with '.' or "'" (both roff control characters, such a line was
# dropped) guarded by \&.
section() {
	echo ".SS \"$(printf '%s' "$1" | sed 's/-/\\-/g')\""
	echo ".nf"
	printf '%s\n' "$2" | sed "s/\\\\/\\\\\\\\/g; s/^[.']/\\\\\\&&/"
	echo ".fi"
}

{
	echo "[COMMANDS]"
	# The commands as the top-level help lists them, so a new command
	# gets its section without an edit here.
	for c in $("$bin" --help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p'); do
		help=$("$bin" "$c" --help 2>&1)
		section "$c" "$help"
		printf '%s\n' "$help" | cksum >"$seen"
		# Its subcommands as its help names them: the word after
		# "wattcast CMD" in the usage block and the word before a
		# "--help" pointer ("wattcast fit capacity --help", "ingest
		# --prometheus --help"). A word whose --help is refused or
		# prints a help already shown (the command's own, or another
		# name of the same subcommand) adds nothing.
		subs=$(printf '%s\n' "$help" |
			sed -n "s/.*wattcast $c \\([a-z][a-z-]*\\).*/\\1/p; s/.*[ \`(]\\(-\{0,2\}[a-z][a-z-]*\\) --help.*/\\1/p" |
			awk '!seen[$0]++')
		for s in $subs; do
			[ "$s" = "$c" ] && continue
			sub=$("$bin" "$c" "$s" --help 2>/dev/null) || continue
			sum=$(printf '%s\n' "$sub" | cksum)
			grep -qx "$sum" "$seen" && continue
			echo "$sum" >>"$seen"
			section "$c $s" "$sub"
		done
	done
	echo "[FILES]"
	echo "/etc/wattcast/params.json is the parameter file the packaged service serves."
	echo "[SEE ALSO]"
	echo "The full documentation is in /usr/share/doc/wattcast (docs/ in the source tree)."
} >"$inc"
help2man --no-info --no-discard-stderr --section=1 \
	--name="power and energy of LLM inference on GPUs, fitted and predicted" \
	--include="$inc" --output="$out.tmp" "$bin"
mv "$out.tmp" "$out"
