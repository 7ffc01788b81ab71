#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Fails the build when a source of hr-core includes a GTK, GDK, GSK,
# libadwaita, cairo or pango header.  Usage: check-includes.sh STAMP FILE...
stamp=$1
shift
if grep -nE '#[[:space:]]*include[[:space:]]*[<"](gtk|gdk|gsk|adwaita|adw|cairo|pango)' "$@"; then
  echo "error: src/core must not include GTK or cairo headers (see docs/DESIGN.md)" >&2
  exit 1
fi
: > "$stamp"
