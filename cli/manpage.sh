#!/bin/sh
# Generate wattcast(1) from the help texts (help2man): the top-level
# --help becomes the synopsis and description, and every command's
# --help (and its subcommands') a section of its own, so the man page can
# never drift from what the binary prints.
# usage: sh cli/manpage.sh PATH/TO/wattcast OUT.1
set -eu
bin=$1
out=$2
inc=$(mktemp)
trap 'rm -f "$inc"' EXIT
{
	echo "[COMMANDS]"
	# The commands as the top-level help lists them, so a new command
	# gets its section without an edit here.
	for c in $("$bin" --help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p'); do
		echo ".SS $c"
		echo ".nf"
		"$bin" "$c" --help 2>&1 | sed 's/\\/\\\\/g; s/^\./\\\&./'
		echo ".fi"
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
