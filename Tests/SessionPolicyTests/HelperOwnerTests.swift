import SessionPolicy
import Testing

/// Whose app a sound tool is: the program of its job that ran it, or its own.
struct HelperOwnerTests {
    /// A process in job `group` (its process group).
    func process(_ pid: Int32, _ executable: String, group: Int32) -> ProcessEntry {
        ProcessEntry(pid: pid, executable: executable, processGroup: group)
    }

    let terminalShell = ProcessEntry(pid: 10, executable: "/usr/bin/bash", processGroup: 10)

    @Test func aSpeechModulesAplayPerChunkIsTheSpeechServersApp() {
        // speech-dispatcher (daemonized: its group's leader is gone) → sd_generic → sh -c "espeak-ng | aplay"
        let server = process(500, "/usr/bin/speech-dispatcher", group: 499)
        let module = process(510, "/usr/lib/speech-dispatcher-modules/sd_generic", group: 499)
        let chunk = { (pid: Int32) in
            AppIdentity(AppFacts(lineage: [
                self.process(pid, "/usr/bin/aplay", group: 499), self.process(pid - 1, "/usr/bin/dash", group: 499), module, server,
            ], connection: UInt32(pid)))
        }
        let first = chunk(600)
        let second = chunk(700)
        #expect(first == second)
        #expect(first.appID == "speech-dispatcher")
        #expect(first == AppIdentity(AppFacts(lineage: [server], connection: 1)))
    }

    @Test func aScriptsAplayIsTheInterpretersApp() {
        let script = process(200, "/usr/bin/python3.11", group: 200)
        let helper = AppIdentity(AppFacts(lineage: [process(210, "/usr/bin/aplay", group: 200), script, terminalShell], connection: 3))
        #expect(helper.appID == "python3.11")
        #expect(helper == AppIdentity(AppFacts(lineage: [script, terminalShell], connection: 4)))
    }

    @Test func aToolThatLeadsItsOwnJobIsItsOwnApp() {
        // `aplay beep.wav` typed in a terminal, or started by a test: a job of its own.
        let typed = AppIdentity(AppFacts(lineage: [process(300, "/usr/bin/aplay", group: 300), terminalShell], connection: 5))
        #expect(typed.appID == "aplay")
        #expect(typed.key == "process:300")
        // Two of them side by side are two apps.
        let other = AppIdentity(AppFacts(lineage: [process(301, "/usr/bin/aplay", group: 301), terminalShell], connection: 6))
        #expect(other != typed)
    }

    @Test func aShellLoopPlayingFileAfterFileIsOneApp() {
        let loop = process(400, "/usr/bin/dash", group: 400)
        let first = AppIdentity(AppFacts(lineage: [process(410, "/usr/bin/pw-cat", group: 400), process(409, "/usr/bin/timeout", group: 400), loop], connection: 7))
        let second = AppIdentity(AppFacts(lineage: [process(420, "/usr/bin/pw-cat", group: 400), process(419, "/usr/bin/timeout", group: 400), loop], connection: 8))
        #expect(first == second)
        #expect(first.key == "process:400")
    }

    @Test func theWalkNeverLeavesTheToolsJob() {
        // A tool a program ran in a job of its own (setsid, a new process group) is not the
        // program's: the program started it as an app, as a shell starts a job.
        let launcher = process(800, "/usr/bin/xfce4-panel", group: 790)
        let detached = AppIdentity(AppFacts(lineage: [process(810, "/usr/bin/paplay", group: 810), launcher], connection: 9))
        #expect(detached.key == "process:810")
        // A tool whose group is unknown is its own app too.
        let unknown = AppIdentity(AppFacts(lineage: [ProcessEntry(pid: 820, executable: "/usr/bin/aplay"), launcher], connection: 10))
        #expect(unknown.key == "process:820")
    }

    @Test func anAppALauncherRanInItsOwnGroupIsNoHelper() {
        // Only sound tools are helpers: a player a panel started without detaching it stays
        // its own app, though it is in the panel's group.
        let panel = process(900, "/usr/bin/xfce4-panel", group: 890)
        let player = AppIdentity(AppFacts(lineage: [process(910, "/usr/bin/audacious", group: 890), panel], connection: 11))
        #expect(player.key == "process:910")
        #expect(player.appID == "audacious")
    }

    @Test func whatAProgramIsComesFromItsExecutablesName() {
        #expect(ProgramKind(programName: "aplay") == .soundTool)
        #expect(ProgramKind(programName: "paplay") == .soundTool)
        #expect(ProgramKind(programName: "dash") == .passThrough)
        #expect(ProgramKind(programName: "timeout") == .passThrough)
        #expect(ProgramKind(programName: "festival") == .program)
        #expect(ProgramKind(programName: "") == .program)
    }
}
