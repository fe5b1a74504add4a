// The raw C calls of the probes sit here and in CoreAffinity.
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Identity and stack position of the calling thread, for re-entrancy and stack-growth checks.
public enum ThreadProbe {
    /// An identifier of the calling thread, unique among live threads.
    public static var id: UInt {
        #if canImport(Darwin)
            UInt(bitPattern: pthread_self())
        #else
            UInt(pthread_self())
        #endif
    }

    /// The address of a local variable of this call: deeper calls give lower addresses.
    @inline(never)
    public static func stackAddress() -> UInt {
        var marker: UInt8 = 0
        return withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
    }
}
