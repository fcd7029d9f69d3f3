/// Sessions by id, stored contiguously: a dictionary maps each id to its slot, and the
/// states live in an array, so reading one field of a session does not copy the session
/// (array elements are accessed in place; dictionary values are not).
struct SessionTable: Sendable {
    private(set) var slots: [SessionID: Int] = [:]
    /// The states; `values[index(forKey:)]` reads and writes one in place.
    var values: [SessionState] = []

    func index(forKey id: SessionID) -> Int? { slots[id] }

    subscript(id: SessionID) -> SessionState? {
        get { slots[id].map { values[$0] } }
        set {
            if let newValue {
                if let slot = slots[id] {
                    values[slot] = newValue
                } else {
                    slots[id] = values.count
                    values.append(newValue)
                }
            } else if let slot = slots.removeValue(forKey: id) {
                // Swap-remove: the last state takes the freed slot.
                let last = values.count - 1
                if slot != last {
                    values.swapAt(slot, last)
                    slots[values[slot].id] = slot
                }
                values.removeLast()
            }
        }
    }
}
