#!/bin/sh
# Regenerates the app and tray icons from icon.svg and tray.svg.template.
# Needs ImageMagick (convert) and icnsutils (png2icns): apt-get install imagemagick icnsutils
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

render() { # svg size out.png
  convert -background none -density 1200 "$1" -resize "$2x$2" -strip "PNG32:$3"
}

# App icon: 512 px PNG (Linux, window), ICO with the Windows sizes, ICNS for macOS.
render icon.svg 512 icon.png
for size in 16 24 32 48 64 128 256; do render icon.svg "$size" "$tmp/icon-$size.png"; done
convert "$tmp/icon-16.png" "$tmp/icon-24.png" "$tmp/icon-32.png" "$tmp/icon-48.png" \
  "$tmp/icon-64.png" "$tmp/icon-128.png" "$tmp/icon-256.png" icon.ico
render icon.svg 16 "$tmp/icns-16.png"
render icon.svg 32 "$tmp/icns-32.png"
render icon.svg 128 "$tmp/icns-128.png"
render icon.svg 256 "$tmp/icns-256.png"
render icon.svg 512 "$tmp/icns-512.png"
png2icns icon.icns "$tmp/icns-16.png" "$tmp/icns-32.png" "$tmp/icns-128.png" \
  "$tmp/icns-256.png" "$tmp/icns-512.png" >/dev/null

# Tray icons, one per state of main/tray-state.ts (trayIconNames), 16 px and 32 px (@2x).
tray() { # name colour mark-svg
  sed -e "s|BADGE_COLOR|$2|" -e "s|BADGE_MARK|$3|" tray.svg.template >"$tmp/tray-$1.svg"
  render "$tmp/tray-$1.svg" 16 "tray/tray-$1.png"
  render "$tmp/tray-$1.svg" 32 "tray/tray-$1@2x.png"
}
mkdir -p tray
tick='<path d="M38 46 l6 6 l11 -12" fill="none" stroke="#ffffff" stroke-width="5" stroke-linecap="round" stroke-linejoin="round"/>'
dots='<circle cx="38" cy="46" r="3" fill="#ffffff"/><circle cx="46" cy="46" r="3" fill="#ffffff"/><circle cx="54" cy="46" r="3" fill="#ffffff"/>'
bars='<rect x="39" y="38" width="5" height="16" fill="#ffffff"/><rect x="48" y="38" width="5" height="16" fill="#ffffff"/>'
cross='<path d="M39 39 l14 14 M53 39 l-14 14" stroke="#ffffff" stroke-width="5" stroke-linecap="round"/>'
bang='<rect x="43.5" y="36" width="5" height="12" rx="2" fill="#ffffff"/><circle cx="46" cy="54" r="3" fill="#ffffff"/>'
dash='<rect x="37" y="43.5" width="18" height="5" rx="2" fill="#ffffff"/>'
tray connected '#1a7f37' "$tick"
tray printing '#1f6feb' "$dots"
tray paused '#b7791f' "$bars"
tray unreachable '#6b7280' "$cross"
tray failed '#c62828' "$bang"
tray idle '#9aa3b2' "$dash"
echo "Icons written to $(pwd)"
