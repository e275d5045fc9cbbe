import ArgumentParser
import TapedeckCore
import TapedeckTooling

/// `--proto-descriptor-set FILE`: gRPC messages read by a service's descriptors, for `replay`,
/// `record` and `inspect`.
struct ProtoDescriptorOptions: ParsableArguments {
    @Option(name: .customLong("proto-descriptor-set"), help: ArgumentHelp(
        "Read gRPC messages by this descriptor set (protoc --descriptor_set_out=FILE --include_imports) and show them as JSON; the servers also match them by value.",
        valueName: "FILE"), transform: ProtoSchema.init(descriptorSetPath:))
    var schema: ProtoSchema?
}
