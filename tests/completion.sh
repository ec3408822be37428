#!/bin/sh
# Shell completion: `make install` puts the scripts generated from the option
# table where Debian's bash-completion and zsh look; sourced, the bash one
# registers its function, and that function, driven as bash drives it
# (COMP_WORDS, COMP_CWORD), offers the options, formats and output plugins.
. "$FK_SRCDIR/tests/lib.sh"
not_sanitized "shell completion" "bash and zsh"

if ! command -v make > /dev/null 2>&1 || ! command -v bash > /dev/null 2>&1; then
	skip_all "shell completion" "make or bash is missing"
fi

STAGE="$TMP/stage"
stage_install "$STAGE"
datadir=$(sed -n "s|^datarootdir = ||p" "$FK_BUILDDIR/Makefile")
prefix=$(sed -n "s|^prefix = ||p" "$FK_BUILDDIR/Makefile")
datadir=$(printf '%s' "$datadir" | sed "s|\${prefix}|$prefix|")
BASHC="$STAGE$datadir/bash-completion/completions/flamekit"
ZSHC="$STAGE$datadir/zsh/vendor-completions/_flamekit"
ok $([ -f "$BASHC" ] && [ -f "$ZSHC" ]; echo $?) \
	"installed: \$(datadir)/bash-completion/completions/flamekit and \$(datadir)/zsh/vendor-completions/_flamekit"

run bash -c ". '$BASHC' && complete -p flamekit"
is "$rc:$err:$out" "0::complete -o filenames -F _flamekit flamekit" "sourced, the bash script registers _flamekit"

# complete WORD...: what _flamekit offers for the last word, one a line, sorted.
complete_words() {
	bash -c '. "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _flamekit
		printf "%s\n" "${COMPREPLY[@]}" | sort' "$BASHC" "$@"
}
is "$(complete_words flamekit graph --col)" "--collapse-recursion
--colordiffusion
--colors" "flamekit graph --col<TAB>: --collapse-recursion, --colordiffusion, --colors"
is "$(complete_words flamekit gr)" "graph" "flamekit gr<TAB>: the command"
is "$(complete_words flamekit graph --tit)" "--title" "graph --tit<TAB>: the svg plugin's --title"
is "$(complete_words flamekit collapse --pi)" "--pid" "collapse --pi<TAB>: the perf input's --pid"
is "$(complete_words flamekit collapse --format pe)" "perf
perf-data" "collapse --format pe<TAB>: the input plugins"
is "$(complete_words flamekit graph --output-plugin ic)" "icicle" "graph --output-plugin ic<TAB>: the output plugins"
is "$(complete_words flamekit diff --nor)" "--normalize" "diff --nor<TAB>: --normalize"
is "$(complete_words flamekit diff --tit)" "" "diff takes no graph options"
mkdir "$TMP/files" && : > "$TMP/files/perf.txt"
is "$(complete_words flamekit graph -o "$TMP/files/pe")" "$TMP/files/perf.txt" "graph -o <TAB>: a file"
is "$(complete_words flamekit run -s "$TMP/files/pe")" "" "run -s takes KEY=VALUE: no file offered"
is "$(complete_words flamekit diff -s "$TMP/files/pe")" "$TMP/files/perf.txt" "diff -s is a flag: the next word is a file"

# Every word the bash script offers for a command is an option that command
# takes: flamekit accepts it (the parser knows it; not an unknown option).
# Each runs in a scratch directory on an input that does not exist, under a
# folder that does not either, so that an option taking a path (-o, --cp)
# can create nothing outside $TMP.
mkdir "$TMP/scratch"
for c in collapse graph diff merge; do
	bad=
	for w in $(complete_words flamekit "$c" --); do
		(cd "$TMP/scratch" && "$FLAMEKIT" "$c" "$w" "$TMP/absent/input" < /dev/null 2>&1) |
			grep -q "unknown option" && bad="$bad $w"
	done
	is "$bad" "" "flamekit $c: every option the completion offers is one it takes"
done

if command -v zsh > /dev/null 2>&1; then
	run zsh -n "$ZSHC"
	is "$rc:$err" "0:" "the zsh script parses (zsh -n)"
else
	skip "the zsh script parses" "zsh is not installed"
fi
is "$(head -1 "$ZSHC")" "#compdef flamekit" "the zsh script is a #compdef function for flamekit"
ok $(grep -q "'--colors=\[" "$ZSHC"; echo $?) "the zsh script offers graph's --colors with a value"

done_testing
