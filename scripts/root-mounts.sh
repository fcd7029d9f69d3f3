# Sourced: bind mounts into a debootstrap root, and their undoing. `bind` records each mount in
# MOUNTS; `unmount_all` undoes them, newest first (lazily: a process still inside cannot keep
# one alive); `mount_system ROOTFS` gives a root what any program in it needs from this machine:
# name resolution and the kernel's file systems. The caller traps EXIT to call `unmount_all`.
MOUNTS=()
bind() {  # bind SOURCE TARGET [ro]
  mkdir -p "$2"
  mount --bind "$1" "$2"
  MOUNTS+=("$2")
  if [ "${3:-}" = ro ]; then mount -o remount,bind,ro "$2"; fi
}
unmount_all() {
  local i
  for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do umount -l "${MOUNTS[i]}" 2>/dev/null || true; done
  MOUNTS=()
}
mount_system() {  # mount_system ROOTFS
  cp /etc/resolv.conf "$1/etc/resolv.conf"
  bind /proc "$1/proc"
  bind /sys "$1/sys"
  bind /dev "$1/dev"
  bind /dev/pts "$1/dev/pts"
  bind /dev/shm "$1/dev/shm"
}
