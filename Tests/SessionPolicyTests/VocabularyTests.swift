import Testing
@testable import SessionPolicy

/// Raw values and wire names straight from the reference (the headers win).
@Suite struct VocabularyTests {
    @Test func categoryOptionsHaveApplesRawValues() {
        #expect(CategoryOptions.mixWithOthers.rawValue == 0x1)
        #expect(CategoryOptions.duckOthers.rawValue == 0x2)
        #expect(CategoryOptions.allowBluetooth.rawValue == 0x4)
        #expect(CategoryOptions.defaultToSpeaker.rawValue == 0x8)
        #expect(CategoryOptions.interruptSpokenAudioAndMixWithOthers.rawValue == 0x11)
        #expect(CategoryOptions.allowBluetoothA2DP.rawValue == 0x20)
        #expect(CategoryOptions.allowAirPlay.rawValue == 0x40)
        #expect(CategoryOptions.overrideMutedMicrophoneInterruption.rawValue == 0x80)
    }

    static let errorCodes: [(AudioSessionError, Int, String?)] = [
        (.none, 0, nil), (.mediaServicesFailed, 1836282486, "msrv"), (.isBusy, 560030580, "!act"),
        (.incompatibleCategory, 560161140, "!cat"), (.cannotInterruptOthers, 560557684, "!int"),
        (.missingEntitlement, 1701737535, "ent?"), (.siriIsRecording, 1936290409, "siri"),
        (.cannotStartPlaying, 561015905, "!pla"), (.cannotStartRecording, 561145187, "!rec"),
        (.badParam, -50, nil), (.insufficientPriority, 561017449, "!pri"),
        (.resourceNotAvailable, 561145203, "!res"), (.unspecified, 2003329396, "what"),
        (.expiredSession, 561210739, "!ses"), (.sessionNotActive, 1768841571, "inac"),
    ]

    @Test(arguments: errorCodes.indices)
    func everyErrorCodeHasItsNumericValueAndFourCC(_ index: Int) {
        let (error, code, fourCC) = Self.errorCodes[index]
        #expect(error.code == code)
        #expect(error.fourCharacterCode == fourCC)
        #expect(AudioSessionError(code: code) == error)
        #expect(AudioSessionError(wireName: error.wireName) == error)
    }

    @Test func everyErrorCodeIsCovered() {
        #expect(Self.errorCodes.count == AudioSessionError.allCases.count)
        #expect(AudioSessionError.expiredSession.wireName == "expiredSession")  // 561210739 is !ses, not inac
    }

    @Test func interruptionValuesKeepTheInversion() {
        #expect(InterruptionType.began.rawValue == 1)
        #expect(InterruptionType.ended.rawValue == 0)
        #expect(InterruptionReason.default.rawValue == 0)
        #expect(InterruptionReason.appWasSuspended.rawValue == 1)
        #expect(InterruptionReason.builtInMicMuted.rawValue == 2)
        #expect(InterruptionReason.routeDisconnected.rawValue == 4)
        #expect(InterruptionOptions.shouldResume.rawValue == 1)
        #expect(SetActiveOptions.notifyOthersOnDeactivation.rawValue == 1)
        #expect(SilenceSecondaryAudioHintType.begin.rawValue == 1)
        #expect(SilenceSecondaryAudioHintType.end.rawValue == 0)
    }

    @Test func routeChangeReasonsHaveNoFive() {
        let expected: [(RouteChangeReason, UInt)] = [
            (.unknown, 0), (.newDeviceAvailable, 1), (.oldDeviceUnavailable, 2), (.categoryChange, 3),
            (.override, 4), (.wakeFromSleep, 6), (.noSuitableRouteForCategory, 7), (.routeConfigurationChange, 8),
        ]
        for (reason, raw) in expected { #expect(reason.rawValue == raw) }
        #expect(RouteChangeReason(rawValue: 5) == nil)
        #expect(RouteChangeReason.allCases.count == expected.count)
    }

    @Test func portTypesUseApplesRawStrings() {
        #expect(PortType.builtInMic.rawValue == "MicrophoneBuiltIn")
        #expect(PortType.headsetMic.rawValue == "MicrophoneWired")
        #expect(PortType.bluetoothA2DP.rawValue == "BluetoothA2DPOutput")
        #expect(PortType.builtInReceiver.rawValue == "Receiver")
        #expect(PortType.builtInSpeaker.rawValue == "Speaker")
        #expect(PortType.HDMI.rawValue == "HDMIOutput")
        #expect(PortType.headsetMic.wireName == "headsetMic")
        #expect(PortType.allCases.count == 21)
    }

    @Test func recordPermissionValuesAreFourCCs() {
        #expect(RecordPermission.undetermined.rawValue == 1970168948)
        #expect(RecordPermission.denied.rawValue == 1684369017)
        #expect(RecordPermission.granted.rawValue == 1735552628)
    }

    @Test func wireNamesRoundTrip() {
        for value in Category.allCases { #expect(Category(wireName: value.wireName) == value) }
        for value in Mode.allCases { #expect(Mode(wireName: value.wireName) == value) }
        for value in PortType.allCases { #expect(PortType(wireName: value.wireName) == value) }
        for value in RouteChangeReason.allCases { #expect(RouteChangeReason(wireName: value.wireName) == value) }
        for value in InterruptionReason.allCases { #expect(InterruptionReason(wireName: value.wireName) == value) }
        for value in RecordPermission.allCases { #expect(RecordPermission(wireName: value.wireName) == value) }
        for value in Interaction.allCases { #expect(Interaction(wireName: value.wireName) == value) }
        for value in InterruptionMethod.allCases { #expect(InterruptionMethod(wireName: value.wireName) == value) }
        for value in PolicyProfile.allCases { #expect(PolicyProfile(wireName: value.wireName) == value) }
        for (name, option) in CategoryOptions.named {
            #expect(CategoryOptions(wireName: name) == option)
            #expect(option.wireNames == [name])
        }
        #expect(Category(wireName: "PlayAndRecord") == nil)
        #expect(Interaction(wireName: "cork") == .interrupt)
        #expect(Category.playAndRecord.appleName == "AVAudioSessionCategoryPlayAndRecord")
    }

    @Test func priorityClassesAreOrdered() {
        let classes = PriorityClass.builtIn
        #expect(classes == classes.sorted())
        #expect(PriorityClass.media < .notification && PriorityClass.notification < .navigation)
        #expect(PriorityClass.navigation < .assistant && PriorityClass.assistant < .communication)
        #expect(PriorityClass.communication < .alarm && PriorityClass.communication < .emergency)
    }

    @Test func decibelsConvertToLinearGain() {
        #expect(abs(PolicyConfiguration.linearGain(decibels: -20) - 0.1) < 1e-12)
        #expect(abs(PolicyConfiguration.linearGain(decibels: 0) - 1) < 1e-12)
        #expect(abs(PolicyConfiguration.decibels(linearGain: 0.3) - -10.457574905606752) < 1e-9)
    }
}
