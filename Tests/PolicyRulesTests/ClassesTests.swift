import SessionPolicy
import Testing
@testable import PolicyRules

@Suite("audiosession.classes: define and tune priority classes")
struct ClassesTests {
    @Test("built-in classes exist without any file")
    func builtIn() throws {
        let classes = try ruleSet("").configuration.priorityClasses
        #expect(Set(classes.keys) == Set(PriorityClass.builtIn.map(\.name)))
        #expect(classes["communication"] == .communication)
    }

    @Test("tuning one field of a built-in class keeps the others")
    func tune() throws {
        let classes = try ruleSet("audiosession.classes = { notification = { toward-lower = mix } }").configuration.priorityClasses
        #expect(classes["notification"]?.towardLower == .mix)
        #expect(classes["notification"]?.priority == 20)
        #expect(classes["notification"]?.towardEqual == .mix)
    }

    @Test("a new class with priority, toward-lower and toward-equal (cork = interrupt)")
    func define() throws {
        let classes = try ruleSet("""
            audiosession.classes = { doorbell = { priority = 60 toward-lower = cork toward-equal = duck } }
            """).configuration.priorityClasses
        #expect(classes["doorbell"] == PriorityClass(name: "doorbell", priority: 60, towardLower: .interrupt, towardEqual: .duck))
    }

    @Test("a new class's toward-equal defaults to mix")
    func defaultEqual() throws {
        let classes = try ruleSet("audiosession.classes = { chime = { priority = 15 toward-lower = duck } }").configuration.priorityClasses
        #expect(classes["chime"]?.towardEqual == .mix)
    }

    @Test("a new class may be completed field by field across files")
    func acrossFiles() throws {
        let classes = try ruleSet(
            "audiosession.classes = { chime = { priority = 15 } }",
            "audiosession.classes = { chime = { toward-lower = duck } }"
        ).configuration.priorityClasses
        #expect(classes["chime"]?.priority == 15)
        #expect(classes["chime"]?.towardLower == .duck)
    }

    @Test("problems", arguments: [
        ("audiosession.classes = { chime = { priority = 15 } }", "a.conf:1: new priority class 'chime' needs toward-lower"),
        ("audiosession.classes = { chime = { } }", "a.conf:1: new priority class 'chime' needs priority and toward-lower"),
        ("audiosession.classes = { media = { priority = high } }", "a.conf:1: priority expects a whole number, found the word high"),
        ("audiosession.classes = { media = { toward-lower = pause } }", "a.conf:1: unknown interaction 'pause' (known: mix, duck, interrupt)"),
        ("audiosession.classes = { media = { toward-equal = [ ] } }", "a.conf:1: expected a interaction name, found an array"),
        ("audiosession.classes = { media = { level = 3 } }", "a.conf:1: unknown key 'level' in class 'media' (known: priority, toward-lower, toward-equal)"),
        ("audiosession.classes = { media = 10 }", "a.conf:1: class 'media' expects an object, found the number 10"),
        ("audiosession.classes = [ media ]", "a.conf:1: audiosession.classes expects an object of classes, found an array"),
    ])
    func problemsAreReported(text: String, expected: String) {
        #expect(problems(text) == [expected])
    }
}
