#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Fails the build when a source of hr-chart includes a GTK, GDK, GSK or
# libadwaita header: charts draw with cairo and pango only, so the same
# function paints a widget and writes a PDF.  Usage: check-includes.sh STAMP FILE...
stamp=$1
shift
if grep -nE '#[[:space:]]*include[[:space:]]*[<"](gtk|gdk|gsk|adwaita|adw)' "$@"; then
  echo "error: src/chart must not include GTK headers (see docs/DESIGN.md)" >&2
  exit 1
fi
: > "$stamp"
