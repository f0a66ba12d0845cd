import FuzzSupport

#if FUZZING
/// libFuzzer's per-input callback.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    PayloadBuilderCheck.run(FuzzDriver.bytes(data, size))
    return 0
}

/// The entry point SwiftPM links as `main` for this executable target: starts libFuzzer.
@_cdecl("fuzz_payload_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv, fuzzTestOneInput)
}
#else
@main
enum ReplayPayloads {
    static func main() {
        FuzzReplay.main(name: "fuzz-payload", arguments: Array(CommandLine.arguments.dropFirst()), check: PayloadBuilderCheck.run)
    }
}
#endif
