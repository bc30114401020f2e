#!/bin/sh
# The nnef-draw page in headless Chromium (CTest "draw: page in chromium", tests/CMakeLists.txt;
# docs/draw.md, The browser test): nnef-draw writes pages of a compositional sample (collapsed, and
# with --lowering), of ResNet-18 from the corpus with --lowering, of DenseNet-121 (a large page, laid
# out by nnef-draw), and of a model with a shape error;
# tests/browser/page_test.py clicks through each. Skips (exit 77, saying why) without Chromium or
# when the build has no HTML page.
#   run.sh NNEF_DRAW SOURCE_DIR CORPUS_DIR OUT_DIR
#   run.sh --sanitizer          (the sanitizer build: skips, saying so)
draw=$1 src=$2 corpus=$3 out=$4
name="draw: page in chromium"
skip() {
  echo "skipped: $1"
  [ -n "${NNEF_SKIP_LOG:-}" ] && echo "$name: skipped: $1" >>"$NNEF_SKIP_LOG"
  exit 77
}
[ "$draw" = --sanitizer ] && skip "the browser test runs in the Release pass only (the page is the same; Chromium is not instrumented)"
chromium=${NNEF_CHROMIUM:-/usr/bin/chromium}
[ -x "$chromium" ] || skip "no Chromium at $chromium (Debian package chromium: scripts/install-deps.sh)"
rm -rf "$out" && mkdir -p "$out/broken" || exit 1
# a semantic error in the third statement: the statements before it are drawn, the error marked
cat >"$out/broken/graph.nnef" <<'NNEF'
version 1.0;
graph broken( input ) -> ( output )
{
    input = external<scalar>(shape = [1, 3, 8, 8]);
    hidden = leaky_relu(input, alpha = 0.5);
    output = sigmoid(hidden, missing);
}
NNEF
run() { # OUT.html ARGS...
  page=$1; shift
  "$draw" "$@" -o "$out/$page" 2>"$out/$page.err"
  code=$?
  if grep -q "has no HTML page" "$out/$page.err"; then skip "$(cat "$out/$page.err")"; fi
  echo "nnef-draw $* -o $page: exit $code"
}
run composite.html "$src/samples/composite" || exit 1
[ "$code" = 0 ] || { cat "$out/composite.html.err"; exit 1; }
run composite-lowering.html "$src/samples/composite" --depth 1 --lowering
[ "$code" = 0 ] || { cat "$out/composite-lowering.html.err"; exit 1; }
run broken.html "$out/broken" --lowering
[ "$code" = 1 ] || { echo "a broken model should exit 1"; cat "$out/broken.html.err"; exit 1; }
pages="$out/composite.html $out/composite-lowering.html $out/broken.html"
if [ -f "$corpus/real/resnet18/graph.nnef" ]; then
  run resnet18.html "$corpus/real/resnet18" --lowering
  [ "$code" = 0 ] || { cat "$out/resnet18.html.err"; exit 1; }
  pages="$pages $out/resnet18.html"
  # the corpus's largest model as written (1113 nodes): its first view laid out by nnef-draw
  run densenet121.html "$corpus/real/densenet121"
  [ "$code" = 0 ] || { cat "$out/densenet121.html.err"; exit 1; }
  pages="$pages $out/densenet121.html"
else
  echo "partly skipped: no corpus at $corpus (ResNet-18 not drawn)"
  [ -n "${NNEF_SKIP_LOG:-}" ] && echo "$name: partly skipped: no corpus at $corpus" >>"$NNEF_SKIP_LOG"
fi
# shellcheck disable=SC2086
exec /usr/bin/python3 "$src/tests/browser/page_test.py" --chromium "$chromium" $pages
