import Foundation
import TapedeckTestSupport
import Testing

/// The tools some tests need besides Swift: a missing one skips those tests, named once with how to
/// install it, instead of failing them.
@Suite("Tools the tests use")
struct ToolTests {
    @Test("a program not on the PATH is missing, named with its Debian package")
    func missingCommand() {
        let tool = Tool.command("tapedeck-no-such-tool", package: "tapedeck-no-such-package")
        #expect(!tool.isInstalled)
        #expect(Tool.missing([tool, tool]) == "not installed: tapedeck-no-such-tool (apt-get install -y tapedeck-no-such-package); "
                + "scripts/test.sh installs what the tests use")
        #expect(Tool.command("sh").isInstalled)
        #expect(Tool.missing([Tool.command("sh")]) == nil)
    }

    @Test("a Python module that does not import is missing, named with its pip package", .requires(.python3))
    func missingPythonModule() {
        let module = Tool.python("tapedeck_no_such_module", package: "tapedeck-no-such-package")
        #expect(!module.isInstalled)
        #expect(Tool.missing([module]) == "not installed: Python's tapedeck_no_such_module (python3 -m pip install tapedeck-no-such-package); "
                + "scripts/test.sh installs what the tests use")
        #expect(Tool.python("json").isInstalled)
    }

    @Test("a test whose tool is missing is skipped, not failed")
    func missingToolSkips() async throws {
        let trait: ConditionTrait = .requires(.command("tapedeck-no-such-tool"))
        #expect(try await trait.evaluate() == false)
        #expect(trait.comments.map(\.rawValue) == ["not installed: tapedeck-no-such-tool (apt-get install -y tapedeck-no-such-tool); "
                                                    + "scripts/test.sh installs what the tests use"])
    }
}
