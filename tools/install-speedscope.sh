#!/bin/sh
# meson install step: copies speedscope's release files (from `make viewer`)
# into the installation for scorep-view.  $1: the build's copy, $2: the
# directory relative to the prefix.
set -e
src=$1
dest=${MESON_INSTALL_DESTDIR_PREFIX:?}/$2
if [ ! -f "$src/index.html" ]; then
    echo "scorep-view: speedscope not installed in the build ($src): run 'make viewer' to install it" >&2
    exit 0
fi
rm -rf "$dest"
mkdir -p "$dest"
cp -R "$src"/. "$dest"/
echo "Installing speedscope to $dest"
