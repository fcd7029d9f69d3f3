import CMalloc

/// Large blocks go back to the system when freed.
///
/// glibc serves a block above its mmap threshold (128 KiB at first) with its own mapping,
/// unmapped on free; but freeing such a block raises the threshold to its size (up to 32 MiB),
/// so the next blocks of that size come from the heap arenas, which keep the memory after
/// they are freed. A client that sends the API a few 4 MiB strings would leave the daemon
/// several MiB larger for the rest of its life: on trixie's glibc, a second such burst left it
/// 9 MiB larger than the first. A fixed threshold turns the adjustment off. The daemon's own
/// large blocks are rare (a big `pw-dump`-sized snapshot, a burst of bus messages), so the cost
/// of mapping them is nothing a user feels.
enum LargeAllocations {
    /// Blocks of this size or more are always mapped on their own.
    static let threshold: Int32 = 128 << 10

    /// Fixes the threshold; call once at start, before other threads allocate.
    static func returnToTheSystemWhenFreed() {
        _ = mallopt(M_MMAP_THRESHOLD, threshold)
    }
}
