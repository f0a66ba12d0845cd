/// The version every program of the package prints (`push-server --version`, `pushctl version`) and the
/// Debian package carries (`make deb` reads it from the built binary).
public enum ProgramVersion {
    /// The release, `major.minor.patch`.
    public static let current = "0.1.0"
}
