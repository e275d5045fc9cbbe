import Foundation
import SwiftProtobuf
import TapedeckCore

extension ProtoSchema {
    /// The schema of a descriptor set file, as `protoc --descriptor_set_out=FILE --include_imports`
    /// (or `buf build -o FILE`) writes it: every message, enum and service method of its files.
    package init(descriptorSetAt file: URL) throws(ToolingError) {
        let bytes: Data
        do {
            bytes = try Data(contentsOf: file)
        } catch {
            throw ToolingError(file: file.path, kind: .io("cannot read the descriptor set: \(UnreadableFile.reason(error, reading: file))"))
        }
        let set: Google_Protobuf_FileDescriptorSet
        do {
            set = try Google_Protobuf_FileDescriptorSet(serializedBytes: bytes)
        } catch {
            throw ToolingError(file: file.path, kind: .badInput(path: "$", message:
                "not a descriptor set (\(error)); write one with protoc --descriptor_set_out=FILE --include_imports"))
        }
        self.init()
        for proto in set.file {
            let package = proto.package.isEmpty ? "" : "." + proto.package
            for message in proto.messageType { add(message, in: package) }
            for enumeration in proto.enumType { add(enumeration, in: package) }
            for service in proto.service {
                let serviceName = (proto.package.isEmpty ? "" : proto.package + ".") + service.name
                for method in service.method {
                    methods["/\(serviceName)/\(method.name)"] = Method(input: method.inputType, output: method.outputType)
                }
            }
        }
        if methods.isEmpty && messages.isEmpty {
            throw ToolingError(file: file.path, kind: .badInput(path: "$", message: "the descriptor set describes no message and no service"))
        }
    }

    /// The schema of the descriptor set at `path`, for a command-line option.
    package init(descriptorSetPath path: String) throws(ToolingError) {
        try self.init(descriptorSetAt: URL(filePath: path))
    }

    private mutating func add(_ message: Google_Protobuf_DescriptorProto, in scope: String) {
        let name = scope + "." + message.name
        messages[name] = message.field.map { field in
            Field(number: Int(field.number), name: field.hasJsonName ? field.jsonName : field.name,
                  type: FieldType(rawValue: field.type.rawValue) ?? .bytes, isRepeated: field.label == .repeated,
                  typeName: field.hasTypeName ? field.typeName : nil)
        }
        if message.options.mapEntry { mapEntries.insert(name) }
        for nested in message.nestedType { add(nested, in: name) }
        for enumeration in message.enumType { add(enumeration, in: name) }
    }

    private mutating func add(_ enumeration: Google_Protobuf_EnumDescriptorProto, in scope: String) {
        enums[scope + "." + enumeration.name] = Dictionary(enumeration.value.map { (Int($0.number), $0.name) }, uniquingKeysWith: { first, _ in first })
    }
}
