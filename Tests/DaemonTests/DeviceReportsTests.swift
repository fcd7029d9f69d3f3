import SessionPolicy
import Testing
@testable import AudioSessionDaemon

/// The backends' record of what they told the policy of each device: only changes are told,
/// and a device that goes takes back what was said of it.
@Suite struct DeviceReportsTests {
    let speaker = DeviceID(.output, 7)
    let mic = DeviceID(.input, 8)

    /// Events as they read (they carry no equality of their own).
    func said(_ events: [BackendEvent]) -> [String] { events.map { "\($0)" } }

    @Test func onlyChangesAreTold() {
        var reports = DeviceReports()
        #expect(said(reports.output(speaker, volume: 0.5)) == said([.outputVolumeChanged(speaker, 0.5)]))
        #expect(reports.output(speaker, volume: 0.5).isEmpty)
        #expect(said(reports.input(mic, volume: 1, muted: false)) == said([.inputVolumeChanged(mic, 1)]))
        #expect(said(reports.input(mic, volume: 1, muted: true)) == said([.inputMuted(mic, true)]))
        #expect(reports.input(mic, volume: nil, muted: true).isEmpty, "a volume not read yet says nothing")
        let sources = DeviceDataSources(sources: [DataSource(id: 1, name: "Front")], selected: 1)
        #expect(said(reports.dataSources(sources, of: mic)) == said([.dataSourcesChanged(mic, sources)]))
        #expect(reports.dataSources(sources, of: mic).isEmpty)
        #expect(reports.dataSources(nil, of: speaker).isEmpty, "none, and none told")
    }

    /// A muted microphone that goes is muted no more; its volume and data sources are unknown.
    @Test func aDeviceThatGoesTakesBackWhatWasSaid() {
        var reports = DeviceReports()
        _ = reports.output(speaker, volume: 0.5)
        _ = reports.input(mic, volume: 0.8, muted: true)
        _ = reports.dataSources(DeviceDataSources(sources: [DataSource(id: 1, name: "Mic")], selected: 1), of: mic)
        #expect(said(reports.removed(mic)) == said([.inputMuted(mic, false), .inputVolumeChanged(mic, nil), .dataSourcesChanged(mic, nil)]))
        #expect(reports.removed(speaker).isEmpty)
        #expect(said(reports.output(speaker, volume: 0.5)) == said([.outputVolumeChanged(speaker, 0.5)]), "told again once it is back")
        reports.reset()
        #expect(said(reports.output(speaker, volume: 0.5)) == said([.outputVolumeChanged(speaker, 0.5)]), "a new connection is told everything")
    }
}
