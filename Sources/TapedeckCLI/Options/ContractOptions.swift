import ArgumentParser
import Foundation
import TapedeckCore
import TapedeckTooling

/// The API document `replay` and `record` check traffic against (`--openapi`), and whether a
/// request that breaks it is refused (`--openapi-strict`).
struct ContractOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Check traffic against this OpenAPI document (YAML or JSON); replay also answers from it what nothing else does.",
                               valueName: "SPEC"))
    var openapi: String?

    @Flag(help: "Refuse a request that breaks the --openapi document with 400 and the violations.")
    var openapiStrict = false

    func validate() throws {
        if openapiStrict, openapi == nil { throw ValidationError("--openapi-strict needs --openapi SPEC") }
    }

    /// The document read, with `seed` for the bodies it generates; nil without `--openapi`.
    func contract(seed: UInt64 = 0) throws(ToolingError) -> APIContract? {
        guard let openapi else { return nil }
        var contract = try APIDocumentFile.contract(at: URL(filePath: openapi))
        contract.seed = seed
        contract.refusesViolations = openapiStrict
        return contract
    }
}
