import SessionPolicy

extension AppFacts {
    /// What the system vouches for about a process, read from `/proc` (its cgroup once): its
    /// Flatpak app id, its desktop app unit's id, its ancestry.
    public static func reading(process pid: Int32, connection: UInt32 = 0) -> AppFacts {
        let cgroup = ProcFile.text("/proc/\(pid)/cgroup")
        return AppFacts(
            sandboxAppID: FlatpakAppID.of(pid, cgroup: cgroup), appScopeID: cgroup.flatMap(AppScope.applicationID(inCgroup:)),
            lineage: ProcessAncestry.lineage(from: pid), connection: connection)
    }
}
