import Foundation
import PipeWireGraph
import PipeWireSandbox
import Testing

extension PipeWireIntegration {
    /// The sandbox's Bluetooth headset, as a session manager sees it through `pw-dump`: a
    /// bluez5 device whose profile switches replace its nodes.
    @Suite struct BluetoothHeadsetTests {
        @Test func looksLikeABluez5DeviceWithItsProfilesAndRoutes() throws {
            let sandbox = try PrivatePipeWire(devices: [])
            let headset = try sandbox.startBluetoothHeadset()
            let dump = try sandbox.dump()
            let device = try #require(dump.objects.first { $0.id == headset.globalID })
            #expect(device.type == "PipeWire:Interface:Device")
            #expect(device.property("device.api") == "bluez5")
            #expect(device.property("device.bus") == "bluetooth")
            #expect(device.property("device.form-factor") == "headset")
            #expect(device.property("media.class") == "Audio/Device")
            #expect(device.property("api.bluez5.address") == "00:11:22:33:44:55")
            #expect(device.property("device.name") == "bluez_card.00_11_22_33_44_55")
            #expect(device.property("device.description") == "Test Headset")

            // Profiles: off first and lowest, A2DP preferred over HFP, each with its classes.
            let profiles = device.profiles("EnumProfile")
            let off = try #require(profiles.first { $0.name == "off" })
            let a2dp = try #require(profiles.first { $0.name == "a2dp-sink" })
            let hfp = try #require(profiles.first { $0.name == "headset-head-unit" })
            #expect(off.index == 0 && off.priority == 0 && off.classes.isEmpty)
            #expect((a2dp.priority ?? 0) > (hfp.priority ?? 0) && (hfp.priority ?? 0) > (off.priority ?? 0))
            #expect(profiles.allSatisfy { $0.available == "yes" })
            #expect(a2dp.index == headset.shapes.index(of: .a2dpSink))
            #expect(hfp.index == headset.shapes.index(of: .headsetHeadUnit))
            #expect(a2dp.classes == [DumpedProfile.Class(mediaClass: "Audio/Sink", count: 1, devices: [1])])
            #expect(hfp.classes == [
                DumpedProfile.Class(mediaClass: "Audio/Source", count: 1, devices: [0]),
                DumpedProfile.Class(mediaClass: "Audio/Sink", count: 1, devices: [1]),
            ])

            // The active profile is A2DP, not saved as the user's choice.
            let active = try #require(device.profiles("Profile").first)
            #expect(device.profiles("Profile").count == 1)
            #expect(BluetoothHeadset.Profile.a2dpSink.matches(active.name))
            #expect(active.save == false)
            #expect(profiles.contains { $0.index == active.index && $0.name == active.name })

            // Routes of every profile, each typed by the profiles it belongs to.
            let routes = device.routes("EnumRoute")
            let a2dpIndices = Set(profiles.filter { BluetoothHeadset.Profile.a2dpSink.matches($0.name) }.map(\.index))
            let hfpIndices = Set(profiles.filter { BluetoothHeadset.Profile.headsetHeadUnit.matches($0.name) }.map(\.index))
            #expect(routes.allSatisfy { !$0.profiles.isEmpty && $0.devices.count == 1 && $0.device == nil })
            let a2dpOutput = try #require(routes.first { $0.direction == "Output" && Set($0.profiles) == a2dpIndices })
            let hfpOutput = try #require(routes.first { $0.direction == "Output" && Set($0.profiles) == hfpIndices })
            let hfpInput = try #require(routes.first { $0.direction == "Input" && Set($0.profiles) == hfpIndices })
            #expect(a2dpOutput.devices == [1] && hfpOutput.devices == [1] && hfpInput.devices == [0])
            #expect(!routes.contains { $0.direction == "Input" && !Set($0.profiles).isDisjoint(with: a2dpIndices) })

            // The active routes: A2DP's output on the sink, stereo, not saved.
            let sinkRoute = try #require(device.routes("Route").first { $0.device == 1 })
            #expect(sinkRoute.name == a2dpOutput.name && sinkRoute.profiles.contains(active.index))
            #expect(sinkRoute.channelVolumes == [1, 1] && sinkRoute.mute == false && sinkRoute.save == false)

            // Only A2DP's node: the stereo 48 kHz sink of card profile device 1.
            let sink = try #require(dump.node(named: headset.sinkName))
            #expect(sink.mediaClass == "Audio/Sink")
            #expect(sink.property("device.id") == String(headset.globalID))
            #expect(sink.property("card.profile.device") == "1")
            #expect(sink.property("api.bluez5.profile") == "a2dp-sink")
            #expect(sink.property("api.bluez5.codec") == "sbc")
            #expect(sink.property("api.bluez5.address") == headset.address)
            #expect(sink.property("device.api") == "bluez5")
            #expect(sink.property("audio.channels") == "2" && sink.property("audio.rate") == "48000")
            #expect(dump.node(named: headset.sourceName) == nil)
            #expect(dump.nodes.filter { $0.property("device.id") == String(headset.globalID) }.count == 1)
        }

        @Test func aClientsProfileRequestReplacesTheNodes() throws {
            let sandbox = try PrivatePipeWire(devices: [])
            let headset = try sandbox.startBluetoothHeadset()
            let device = try #require(try sandbox.dump().objects.first { $0.id == headset.globalID })
            let profiles = device.profiles("EnumProfile")
            let hfpIndex = try #require(profiles.first { $0.name == "headset-head-unit" }?.index)
            let a2dpIndex = try #require(profiles.first { $0.name == "a2dp-sink" }?.index)
            let a2dpSink = try #require(try sandbox.dump().node(named: headset.sinkName))

            try setProfile(hfpIndex, save: false, of: headset, in: sandbox)
            var dump = try waitForNodes(of: .headsetHeadUnit, of: headset, in: sandbox)
            let hfpSink = try #require(dump.node(named: headset.sinkName))
            let source = try #require(dump.node(named: headset.sourceName))
            // Ids are reused (the new source may take the old sink's); serials are not.
            let a2dpSerial = try #require(a2dpSink.property("object.serial"))
            #expect(!dump.nodes.contains { $0.property("object.serial") == a2dpSerial }, "the A2DP sink was destroyed")
            #expect(hfpSink.mediaClass == "Audio/Sink" && source.mediaClass == "Audio/Source")
            #expect(hfpSink.property("card.profile.device") == "1" && source.property("card.profile.device") == "0")
            for node in [hfpSink, source] {
                #expect(node.property("device.id") == String(headset.globalID))
                #expect(node.property("audio.channels") == "1" && node.property("audio.rate") == "16000")
                #expect(node.property("api.bluez5.codec") == "msbc")
            }
            let hfp = try #require(dump.objects.first { $0.id == headset.globalID })
            let active = try #require(hfp.profiles("Profile").first)
            #expect(BluetoothHeadset.Profile.headsetHeadUnit.matches(active.name) && active.save == false)
            let routes = hfp.routes("Route")
            #expect(routes.contains { $0.direction == "Input" && $0.device == 0 && $0.profiles.contains(active.index) })
            #expect(routes.contains { $0.direction == "Output" && $0.device == 1 && $0.profiles.contains(active.index) })
            #expect(routes.first { $0.device == 1 }?.channelVolumes == [1])
            #expect(headset.profileRequests == [.init(index: hfpIndex, save: false)])

            try setProfile(a2dpIndex, save: true, of: headset, in: sandbox)
            dump = try waitForNodes(of: .a2dpSink, of: headset, in: sandbox)
            #expect(dump.node(named: headset.sinkName)?.property("audio.channels") == "2")
            let back = try #require(dump.objects.first { $0.id == headset.globalID }?.profiles("Profile").first)
            #expect(BluetoothHeadset.Profile.a2dpSink.matches(back.name) && back.save == true)
            #expect(headset.profileRequests == [.init(index: hfpIndex, save: false), .init(index: a2dpIndex, save: true)])
            #expect(headset.profileChanges.count == 3, "started in A2DP, then HFP, then A2DP: \(headset.profileChanges)")
        }

        /// As bluez5: asking for the active profile again only records `save`; its nodes stay.
        @Test func requestingTheActiveProfileKeepsItsNodes() throws {
            let sandbox = try PrivatePipeWire(devices: [])
            let headset = try sandbox.startBluetoothHeadset()
            let dump = try sandbox.dump()
            let active = try #require(dump.objects.first { $0.id == headset.globalID }?.profiles("Profile").first)
            let sink = try #require(dump.node(named: headset.sinkName))
            try setProfile(active.index, save: true, of: headset, in: sandbox)
            try waitUntil(timeout: .seconds(5), "the helper receives the request") { headset.profileRequests.count == 1 }
            #expect(headset.profileRequests == [.init(index: active.index, save: true)])
            #expect(headset.profileChanges.count == 1)
            #expect(try sandbox.dump().node(named: headset.sinkName)?.id == sink.id)
        }

        @Test func theHeadsetSwitchesByItselfWithoutARequest() throws {
            let sandbox = try PrivatePipeWire(devices: [])
            let headset = try sandbox.startBluetoothHeadset()
            try headset.switchProfile(to: .headsetHeadUnit)
            _ = try waitForNodes(of: .headsetHeadUnit, of: headset, in: sandbox)
            try headset.switchProfile(to: .off)
            let dump = try waitForNodes(of: .off, of: headset, in: sandbox)
            let device = try #require(dump.objects.first { $0.id == headset.globalID })
            #expect(device.profiles("Profile").first?.name == "off")
            #expect(device.routes("Route").isEmpty)
            #expect(device.routes("EnumRoute").count == 3, "the routes of every profile stay listed")
            try headset.switchProfile(to: .a2dpSink)
            _ = try waitForNodes(of: .a2dpSink, of: headset, in: sandbox)
            #expect(headset.profileRequests.isEmpty)
            #expect(headset.lastSwitch(to: .off) != nil)
        }

        /// A subscriber (the graph mirror) sees a switch: the device toggles its param SERIAL
        /// bits, and the mirror enumerates the new active routes and profile. It reads each
        /// route's profiles, so the routes of the active profile are known.
        @Test func aSubscriberSeesTheSwitchInTheActiveRoutesAndProfile() throws {
            let harness = try GraphHarness(devices: [])
            let headset = try harness.sandbox.startBluetoothHeadset()
            let id = headset.globalID
            let before = try harness.waitForSnapshot("the headset's A2DP output route and profile are active") {
                $0.devices[id]?.activeRoutes.contains { $0.device == 1 && $0.name == "headset-output" } == true
                    && $0.devices[id]?.activeProfile.map { BluetoothHeadset.Profile.a2dpSink.matches($0.name) } == true
            }
            let a2dp = try #require(before.devices[id])
            let dumped = try #require(try harness.sandbox.dump().objects.first { $0.id == headset.globalID })
            #expect(a2dp.profiles.map(\.name) == dumped.profiles("EnumProfile").map(\.name))
            #expect(a2dp.enumRoutes.map(\.profiles) == dumped.routes("EnumRoute").map(\.profiles))
            #expect(a2dp.enumRoutes.map(\.devices) == dumped.routes("EnumRoute").map(\.devices))
            #expect(a2dp.enumRoutes.allSatisfy { !$0.devices.isEmpty }, "each route says which card profile device it serves")
            #expect(a2dp.routesOfActiveProfile.map(\.name).contains("headset-output"))
            #expect(!a2dp.routesOfActiveProfile.map(\.name).contains("headset-hf-output"))

            try headset.switchProfile(to: .headsetHeadUnit)
            let snapshot = try harness.waitForSnapshot("the headset's HFP routes and profile are active") {
                $0.devices[id]?.activeRoutes.contains { $0.device == 1 && $0.name == "headset-hf-output" } == true
                    && $0.devices[id]?.activeProfile.map { BluetoothHeadset.Profile.headsetHeadUnit.matches($0.name) } == true
            }
            let hfp = try #require(snapshot.devices[id])
            let dumpedAfter = try #require(try harness.sandbox.dump().objects.first { $0.id == headset.globalID })
            #expect(Set(hfp.activeRoutes.map(\.name)) == Set(dumpedAfter.routes("Route").map(\.name)))
            #expect(hfp.activeProfile?.index == dumpedAfter.profiles("Profile").first?.index)
            #expect(hfp.routesOfActiveProfile.map(\.name).contains("headset-hf-output"))
            #expect(!hfp.routesOfActiveProfile.map(\.name).contains("headset-output"))
        }

        @Test func aClientSetsARoutesVolume() throws {
            let sandbox = try PrivatePipeWire(devices: [])
            let headset = try sandbox.startBluetoothHeadset()
            let device = try #require(try sandbox.dump().objects.first { $0.id == headset.globalID })
            let route = try #require(device.routes("Route").first { $0.device == 1 })
            try sandbox.run("pw-cli", [
                "set-param", String(headset.globalID), "Route",
                "{ index: \(route.index), device: 1, props: { mute: true, channelVolumes: [ 0.5, 0.5 ] }, save: true }",
            ])
            try waitUntil(timeout: .seconds(5), "the sink's route is muted at half volume") {
                let route = try sandbox.dump().objects.first { $0.id == headset.globalID }?.routes("Route").first { $0.device == 1 }
                return route?.mute == true && route?.channelVolumes == [0.5, 0.5] && route?.save == true
            }
        }

        @Test func stoppingTheHelperRemovesTheDeviceAndItsNodes() throws {
            let sandbox = try PrivatePipeWire(devices: [])
            let headset = try sandbox.startBluetoothHeadset(profile: .headsetHeadUnit)
            _ = try waitForNodes(of: .headsetHeadUnit, of: headset, in: sandbox)
            headset.process.terminate()
            try waitUntil(timeout: .seconds(5), "the device and its nodes are gone") {
                let dump = try sandbox.dump()
                return !dump.objects.contains { $0.id == headset.globalID && $0.type == "PipeWire:Interface:Device" }
                    && dump.node(named: headset.sinkName) == nil && dump.node(named: headset.sourceName) == nil
            }
        }

        /// WirePlumber 0.5's stand-in source stays in every profile; the real HFP source is
        /// the internal one behind it.
        @Test func aStandInSourceStaysInEveryProfile() throws {
            let sandbox = try PrivatePipeWire(devices: [])
            let headset = try sandbox.startBluetoothHeadset(standIn: true)
            let standInName = try #require(headset.standInName)
            #expect(standInName == "bluez_input.00:11:22:33:44:55")
            var dump = try sandbox.dump()
            let standIn = try #require(dump.node(named: standInName))
            #expect(standIn.mediaClass == "Audio/Source")
            #expect(standIn.flag("bluez5.loopback") == true)
            #expect(standIn.property("device.id") == String(headset.globalID))
            #expect(standIn.property("card.profile.device") == "0")
            let serial = try #require(standIn.property("object.serial"))

            try headset.switchProfile(to: .headsetHeadUnit)
            dump = try waitForNodes(of: .headsetHeadUnit, of: headset, in: sandbox)
            let internalSource = try #require(dump.node(named: headset.sourceName))
            #expect(headset.sourceName == "bluez_input_internal.00_11_22_33_44_55.0")
            #expect(internalSource.mediaClass == "Audio/Source/Internal")
            #expect(internalSource.flag("api.bluez5.internal") == true)
            #expect(internalSource.flag("bluez5.loopback-target") == true)
            #expect(dump.node(named: standInName)?.property("object.serial") == serial)

            try headset.switchProfile(to: .a2dpSink)
            dump = try waitForNodes(of: .a2dpSink, of: headset, in: sandbox)
            #expect(dump.node(named: standInName)?.property("object.serial") == serial)
            #expect(!dump.nodes.contains { $0.mediaClass?.hasPrefix("Audio/Source/Internal") == true })
        }

        // MARK: - Helpers

        private func setProfile(_ index: Int, save: Bool, of headset: BluetoothHeadset, in sandbox: PrivatePipeWire) throws {
            try sandbox.run("pw-cli", ["set-param", String(headset.globalID), "Profile", "{ index: \(index), save: \(save) }"])
        }

        /// Waits until exactly `profile`'s nodes of the headset exist (beside its stand-in, if
        /// any), each with its `api.bluez5.profile`; returns that dump.
        private func waitForNodes(
            of profile: BluetoothHeadset.Profile, of headset: BluetoothHeadset, in sandbox: PrivatePipeWire
        ) throws -> PipeWireDump {
            var last: PipeWireDump?
            try waitUntil(timeout: .seconds(5), "the headset's nodes are \(headset.nodeNames(of: profile))") {
                let dump = try sandbox.dump()
                last = dump
                let nodes = dump.nodes.filter {
                    $0.property("device.id") == String(headset.globalID) && $0.name != headset.standInName
                }
                return Set(nodes.compactMap(\.name)) == Set(headset.nodeNames(of: profile))
                    && nodes.allSatisfy { $0.property("api.bluez5.profile") == profile.rawValue }
            }
            return last!
        }
    }
}

/// A bluez5 `EnumProfile` / `Profile` entry, as pw-dump prints it.
private struct DumpedProfile {
    struct Class: Equatable {
        let mediaClass: String
        let count: Int
        let devices: [Int]
    }

    let json: [String: Any]
    var index: Int { (json["index"] as? NSNumber)?.intValue ?? -1 }
    var name: String { json["name"] as? String ?? "" }
    var priority: Int? { (json["priority"] as? NSNumber)?.intValue }
    var available: String? { json["available"] as? String }
    var save: Bool? { json["save"] as? Bool }
    /// `classes`: one struct per media class, `[class, count, "card.profile.devices", [devices]]`.
    var classes: [Class] {
        (json["classes"] as? [[Any]] ?? []).compactMap { entry in
            guard entry.count == 4, let mediaClass = entry[0] as? String, let count = (entry[1] as? NSNumber)?.intValue,
                entry[2] as? String == "card.profile.devices", let devices = entry[3] as? [NSNumber]
            else { return nil }
            return Class(mediaClass: mediaClass, count: count, devices: devices.map(\.intValue))
        }
    }
}

/// A bluez5 `EnumRoute` / `Route` entry, as pw-dump prints it.
private struct DumpedRoute {
    let json: [String: Any]
    var index: Int { (json["index"] as? NSNumber)?.intValue ?? -1 }
    var name: String { json["name"] as? String ?? "" }
    var direction: String? { json["direction"] as? String }
    var profiles: [Int] { (json["profiles"] as? [NSNumber] ?? []).map(\.intValue) }
    var devices: [Int] { (json["devices"] as? [NSNumber] ?? []).map(\.intValue) }
    /// The card profile device of an active route; nil in `EnumRoute`.
    var device: Int? { (json["device"] as? NSNumber)?.intValue }
    var save: Bool? { json["save"] as? Bool }
    private var props: [String: Any]? { json["props"] as? [String: Any] }
    var mute: Bool? { props?["mute"] as? Bool }
    var channelVolumes: [Double]? { (props?["channelVolumes"] as? [NSNumber])?.map(\.doubleValue) }
}

extension PipeWireDump.Object {
    /// A boolean property: pw-dump prints `"true"` as JSON `true`.
    fileprivate func flag(_ key: String) -> Bool? {
        switch properties[key] {
        case let value as Bool: value
        case let text as String: text == "true"
        default: nil
        }
    }

    /// The param `id` (`EnumProfile`, `Profile`) as pw-dump printed it.
    fileprivate func profiles(_ id: String) -> [DumpedProfile] { params(id).map(DumpedProfile.init) }

    /// The param `id` (`EnumRoute`, `Route`) as pw-dump printed it.
    fileprivate func routes(_ id: String) -> [DumpedRoute] { params(id).map(DumpedRoute.init) }

    private func params(_ id: String) -> [[String: Any]] {
        (info["params"] as? [String: Any])?[id] as? [[String: Any]] ?? []
    }
}
