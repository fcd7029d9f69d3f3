/// One device setting that active sessions may each want (an input gain, a card route): per
/// device, the wish of the non-mixable session wins, then the most recently activated one's —
/// the rule of the hardware preferences. Collects the wishes of one step, then says what changed
/// against what each device was last given: a new value to apply, or nil to give it back.
struct DeviceSettingChoice<Value: Equatable> {
    private var winners: [DeviceID: (value: Value, contender: HardwareArbiter.Contender)] = [:]

    /// A session's wish for a device.
    mutating func offer(_ value: Value, for device: DeviceID, by state: SessionState) {
        let candidate = HardwareArbiter.Contender(
            wish: state.wish, isMixable: state.configuration.isMixable, activationSerial: state.serial)
        if HardwareArbiter.outranks(candidate, winners[device]?.contender) {
            winners[device] = (value, candidate)
        }
    }

    /// Brings `applied` in line with the winners; the changes, in device order (nil: give back).
    func changes(applied: inout [DeviceID: Value]) -> [(device: DeviceID, value: Value?)] {
        var changes: [(device: DeviceID, value: Value?)] = []
        for device in applied.keys.sorted() where winners[device] == nil {
            applied[device] = nil
            changes.append((device, nil))
        }
        for device in winners.keys.sorted() {
            let value = winners[device]!.value
            guard applied[device] != value else { continue }
            applied[device] = value
            changes.append((device, value))
        }
        return changes
    }
}
