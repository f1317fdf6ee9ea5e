import Foundation
import Testing

/// What a Debian command-line tool is expected to have: `--version` that says what is inside, manual pages,
/// shell completions, a prefix install that uninstalls cleanly, and a package whose Depends covers what scrubkit
/// opens at run time.
@Suite struct VersionTests {
    @Test func versionTellsTheFFmpegFoundAndTheOptionalParts() throws {
        let text = try Scrub.run(["--version"])
        #expect(text.status == 0)
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines.first?.hasPrefix("scrubkit ") == true && lines.first?.split(separator: " ").count == 2,
            "first line: scrubkit VERSION")
        let json = try Scrub.run(["--version", "--json"])
        #expect(json.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["version"] as? String == lines.first?.split(separator: " ").last.map(String.init))
        let ffmpeg = try #require(object["ffmpeg"] as? [String: Any])
        #expect(ffmpeg["found"] as? Bool == true)
        let libraries = try #require(ffmpeg["libraries"] as? [[String: Any]])
        #expect(
            libraries.compactMap { $0["name"] as? String }.sorted() == [
                "libavcodec", "libavfilter", "libavformat", "libavutil", "libswresample", "libswscale",
            ])
        // The versions are the ones the system has: compare with what pkg-config says of the headers built against.
        if let pc = try? Scrub.execute("pkg-config", ["--modversion", "libavformat"]), pc.status == 0 {
            let avformat = libraries.first { $0["name"] as? String == "libavformat" }
            #expect(avformat?["builtAgainst"] as? String == pc.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(avformat?["version"] as? String != nil)
        }
        let features = try #require(object["features"] as? [String: Bool])
        for key in ["video", "png", "webp", "heic", "avif", "text", "sixel", "sound", "pitch"] {
            #expect(features[key] != nil, "feature \(key) reported")
        }
        #expect(features["webp"] == true && features["sixel"] == true)
        // Sound: reported from the client library being installed, which --version does not load.
        let pulseInstalled = ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib"]
            .contains { FileManager.default.fileExists(atPath: "\($0)/libpulse-simple.so.0") }
        #expect(features["sound"] == pulseInstalled)
        for name in ["libjpeg-turbo", "libwebp", "libheif", "libsixel", "FreeType", "zlib"] {
            #expect(text.stdout.contains(name), "\(name) listed")
        }
        // The licence: scrubkit's on the second line and in the JSON, FFmpeg's as the library found says.
        #expect(
            lines.count > 1 && lines[1].contains("Apache-2.0"),
            "second line names the licence: \(lines.dropFirst().first ?? "")")
        #expect(object["license"] as? String == "Apache-2.0")
        let ffLicense = try #require(ffmpeg["license"] as? String)
        #expect(ffLicense.contains("GPL"), "FFmpeg's licence: \(ffLicense)")
        #expect(text.stdout.contains(ffLicense))
        #expect(features["gif"] == true)
        let bad = try Scrub.run(["--version", "--bogus"])
        #expect(bad.status == 64)
    }

    /// With libavcodec unreadable (a private mount namespace puts /dev/null over it), --version names it as
    /// missing instead of ending, a video thumbnail fails with status 127 and the loader's message, and a JPEG
    /// thumbnail (which never loads FFmpeg) still works.
    @Test(.enabled(if: getuid() == 0, "needs root for a private mount namespace"))
    func aMissingFFmpegLibraryIsReportedNotFatal() throws {
        let json = try Scrub.run(["--version", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let libraries = (object?["ffmpeg"] as? [String: Any])?["libraries"] as? [[String: Any]] ?? []
        let soname = try #require(libraries.first { $0["name"] as? String == "libavcodec" }?["file"] as? String)
        let found = try Scrub.execute("/sbin/ldconfig", ["-p"]).stdout.split(separator: "\n")
            .first { $0.contains(soname + " ") && $0.contains("x86-64") }
        let path = try #require(found.flatMap { $0.components(separatedBy: " => ").last }, "ldconfig knows \(soname)")
        let real = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scrubkit-nolib-\(getpid())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let video = Scrub.packageRoot.appendingPathComponent("samples/h264_gop2s.mp4").path
        let jpeg = Scrub.packageRoot.appendingPathComponent("samples/large_6000x4000.jpg").path
        let script = """
        mount --bind /dev/null '\(real)' || exit 99
        '\(Scrub.binary)' --version > '\(dir)/version.txt' 2>&1; echo $? > '\(dir)/version.status'
        '\(Scrub.binary)' --version --json > '\(dir)/version.json' 2>/dev/null
        '\(Scrub.binary)' thumb '\(video)' --at 1 -o '\(dir)/v.jpg' > /dev/null 2> '\(dir)/video.err'; echo $? > \
        '\(dir)/video.status'
        '\(Scrub.binary)' thumb '\(jpeg)' --max-size 64 -o '\(dir)/p.jpg' > /dev/null 2>&1; echo $? > \
        '\(dir)/jpeg.status'
        """
        let r = try Scrub.execute("unshare", ["--mount", "--propagation", "private", "sh", "-c", script])
        try #require(r.status == 0, "unshare/mount failed: \(r.stderr)")
        func read(_ name: String) -> String { (try? String(contentsOfFile: dir + "/" + name, encoding: .utf8)) ?? "" }
        #expect(read("version.status").hasPrefix("0"), "--version without libavcodec: \(read("version.txt"))")
        #expect(
            read("version.txt").contains("libavcodec") && read("version.txt").contains("missing"),
            "\(read("version.txt"))")
        let missing = try JSONSerialization.jsonObject(with: Data(read("version.json").utf8)) as? [String: Any]
        let ff = missing?["ffmpeg"] as? [String: Any]
        #expect(ff?["found"] as? Bool == false)
        let codec = (ff?["libraries"] as? [[String: Any]])?.first { $0["name"] as? String == "libavcodec" }
        #expect(codec?["version"] is NSNull && (codec?["error"] as? String)?.isEmpty == false, "\(codec ?? [:])")
        #expect((missing?["features"] as? [String: Bool])?["video"] == false)
        #expect(
            read("video.status").hasPrefix("127") && read("video.err").contains(soname), "video: \(read("video.err"))")
        // The message names the Debian package that holds the library (libavcodec.so.59 → libavcodec59), not
        // "ffmpeg".
        let package = soname.replacingOccurrences(of: ".so.", with: "")
        #expect(
            read("video.err").contains("apt-get install \(package))") && !read("video.err").contains("install ffmpeg"),
            "video: \(read("video.err"))")
        #expect(read("version.txt").contains("apt-get install \(package)"), "\(read("version.txt"))")
        #expect(read("jpeg.status").hasPrefix("0"), "a JPEG needs no FFmpeg")
    }
}

@Suite struct ManualPageTests {
    static func pages() throws -> [String] {
        try Scrub.run(["manual", "--list"]).stdout.split(separator: "\n").map(String.init)
    }

    @Test func everyCommandHasAPageWithTheSectionsAndOptionsOfItsHelp() throws {
        let pages = try Self.pages()
        let commands = [
            "info", "thumb", "downsample", "thumbs", "preview", "cut", "play", "browse", "bench", "cache", "manual",
            "completions",
        ]
        #expect(pages == ["scrubkit"] + commands.map { "scrubkit-" + $0 })
        for command in commands {
            let page = try Scrub.run(["manual", command])
            #expect(page.status == 0)
            for section in [
                "NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXAMPLES", "EXIT STATUS", "ENVIRONMENT", "FILES",
                "SEE ALSO",
            ] {
                #expect(page.stdout.contains(".SH \"\(section)\""), "scrubkit-\(command)(1) lacks \(section)")
            }
            #expect(page.stdout.contains("SCRUBKIT_GRAPHICS") && page.stdout.contains("XDG_CACHE_HOME"))
            // One source of truth: every option --help lists is in the page (dashes escaped as \-).
            let help = try Scrub.run([command, "--help"]).stdout
            let options = Set(
                help.matches(of: /(?:^|[\s,])(--?[a-z][a-z0-9-]*)/.anchorsMatchLineEndings()).map { String($0.1) }
            )
            .filter { help.contains("  " + $0) || help.contains(", " + $0) }
            #expect(!options.isEmpty)
            for option in options {
                #expect(
                    page.stdout.contains("\\fB" + option.replacingOccurrences(of: "-", with: "\\-") + "\\fR"),
                    "scrubkit-\(command)(1) lacks \(option)")
            }
        }
        let main = try Scrub.run(["manual"]).stdout
        for command in commands { #expect(main.contains("scrubkit\\-\(command)"), "scrubkit(1) lists \(command)") }
        #expect(try Scrub.run(["manual", "nosuch"]).status == 64)
    }

    /// mandoc's linter (and groff's warnings) find nothing to say about any page.
    @Test func pagesAreLintClean() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scrubkit-man-\(getpid())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var files: [String] = []
        for page in try Self.pages() {
            let file = dir + "/" + page + ".1"
            try Scrub.run(["manual", page]).stdout.write(toFile: file, atomically: true, encoding: .utf8)
            files.append(file)
        }
        var checked = 0
        if let lint = try? Scrub.execute("mandoc", ["-Tlint", "-Wstyle"] + files), lint.status != 127 {
            #expect(
                lint.status == 0 && lint.stdout.isEmpty && lint.stderr.isEmpty,
                "mandoc -Tlint:\n\(lint.stdout)\(lint.stderr)")
            checked += 1
        }
        for file in files {
            guard
                let g = try? Scrub.execute(
                    "groff", ["-ww", "-z", "-man", "-Tutf8", file], environment: ["LC_ALL": "C.UTF-8"]), g.status != 127
            else { continue }
            #expect(g.status == 0 && g.stderr.isEmpty, "groff -ww \(file): \(g.stderr)")
            checked += 1
        }
        #expect(checked > 0, "neither mandoc nor groff is installed (tools/setup-deps installs mandoc)")
    }
}

@Suite struct CompletionTests {
    /// A directory with media, a non-media file and a subdirectory, to see what FILE arguments are offered.
    static func fixture() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scrubkit-comp-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: dir + "/sub", withIntermediateDirectories: true)
        for f in ["a.mp4", "B.MKV", "c.txt", "d.jpg"] {
            _ = FileManager.default.createFile(atPath: dir + "/" + f, contents: Data())
        }
        return dir
    }

    static func script(_ shell: String, in dir: String) throws -> String {
        let r = try Scrub.run(["completions", shell])
        try #require(r.status == 0, "\(shell): \(r.stderr)")
        let ext = ["bash": "bash", "zsh": "zsh", "fish": "fish"][shell]!
        let path = dir + "/../scrubkit-completion-\(getpid())-\(UUID().uuidString).\(ext)"
        try r.stdout.write(toFile: path, atomically: true, encoding: .utf8)
        return URL(fileURLWithPath: path).standardizedFileURL.path
    }

    /// The cases every shell must answer: (line before the cursor, what must be offered, what must not).
    static let cases: [(String, Set<String>, Set<String>)] = [
        ("scrubkit th", ["thumb", "thumbs"], ["info"]),
        ("scrubkit thumb --fo", ["--format"], []),
        ("scrubkit thumb --format ", ["png", "jpeg", "webp"], ["gif"]),
        ("scrubkit play --graphics ", ["kitty", "sixel", "blocks", "none"], []),
        ("scrubkit thumb ", ["a.mp4", "B.MKV", "d.jpg"], ["c.txt"]),
        ("scrubkit downsample ", ["d.jpg"], ["a.mp4", "c.txt"]),
        ("scrubkit thumbs x --out ", ["sub"], ["a.mp4"]),
        ("scrubkit --vers", ["--version"], []),
        ("scrubkit completions ", ["bash", "zsh", "fish"], []),
    ]

    static func check(_ shell: String, _ complete: (String) throws -> Set<String>) throws {
        for (line, wanted, unwanted) in cases {
            let got = Set(try complete(line).map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 })
            #expect(wanted.isSubset(of: got), "\(shell): '\(line)' offered \(got.sorted()), wanted \(wanted.sorted())")
            #expect(
                got.isDisjoint(with: unwanted), "\(shell): '\(line)' offered \(got.intersection(unwanted).sorted())")
        }
    }

    @Test func bashCompletesCommandsOptionsValuesAndMediaFiles() throws {
        let dir = try Self.fixture(); defer { try? FileManager.default.removeItem(atPath: dir) }
        let script = try Self.script("bash", in: dir); defer { try? FileManager.default.removeItem(atPath: script) }
        try Self.check("bash") { line in
            var words = line.split(separator: " ").map(String.init)
            if line.hasSuffix(" ") { words.append("") }
            let quoted = words.map { "'" + $0 + "'" }.joined(separator: " ")
            let r = try Scrub.execute(
                "bash",
                [
                    "--norc", "-c",
                    "source '\(script)'; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _scrubkit; printf "
                        + "'%s\\n' \"${COMPREPLY[@]}\"",
                ], directory: dir)
            #expect(r.status == 0, "bash: \(r.stderr)")
            return Set(r.stdout.split(separator: "\n").map(String.init))
        }
        let registered = try Scrub.execute("bash", ["--norc", "-c", "source '\(script)'; complete -p scrubkit"])
        #expect(registered.stdout.contains("-F _scrubkit scrubkit"))
    }

    static var zshAvailable: Bool { (try? Scrub.execute("zsh", ["-c", "zmodload zsh/zpty"]))?.status == 0 }

    /// zsh's real completion system (compinit, _arguments) in a pseudo-terminal: compadd is wrapped to print
    /// each match, and Tab runs complete-word then prints an end mark (read up to it: nothing is typed ahead).
    @Test(.enabled(if: CompletionTests.zshAvailable, "zsh is not installed"))
    func zshCompletesCommandsOptionsValuesAndMediaFiles() throws {
        let dir = try Self.fixture(); defer { try? FileManager.default.removeItem(atPath: dir) }
        let functions = dir + "/../scrubkit-zfunc-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: functions, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: functions) }
        try Scrub.run(["completions", "zsh"]).stdout.write(
            toFile: functions + "/_scrubkit", atomically: true, encoding: .utf8)
        let driver = """
        zmodload zsh/zpty
        zpty z zsh -f -i
        zpty -w z "PS1='' PROMPT='' RPROMPT=''; fpath=($1 \\$fpath); autoload -Uz compinit; compinit -u -D"
        zpty -w z "zstyle ':completion:*' list-grouped false; zstyle ':completion:*' insert-tab false"
        zpty -w z 'compadd() { if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\\ * ]]; then builtin compadd "$@"; return $?; fi; \
        typeset -a hits; builtin compadd -A hits "$@"; local h; for h in $hits; do print -r -- "<<hit:$h>>"; done; \
        builtin compadd "$@"; }'
        zpty -w z 'complete-then-mark() { zle complete-word; print -r -- "<<end"">>"; }; zle -N complete-then-mark; \
        bindkey "^I" complete-then-mark'
        zpty -w z "print -r -- '<<ready>>'"
        local line out=""
        while zpty -r z line; do [[ $line == *'<<ready>>'* && $line != *print* ]] && break; done
        zpty -w -n z "$2"$'\\t'
        while zpty -r z line; do
          out+=$line
          [[ $line == *'<<end>>'* ]] && break
        done
        print -r -- "$out"
        zpty -d z
        """

        let driverPath = functions + "/drive.zsh"
        try driver.write(toFile: driverPath, atomically: true, encoding: .utf8)
        try Self.check("zsh") { line in
            let r = try Scrub.execute("timeout", ["30", "zsh", "-f", driverPath, functions, line], directory: dir)
            #expect(r.status == 0, "zsh driver: \(r.status) \(r.stderr)")
            return Set(r.stdout.matches(of: /<<hit:([^>]*)>>/).map { String($0.1) })
        }
    }

    static var fishAvailable: Bool { (try? Scrub.execute("fish", ["-c", "true"]))?.status == 0 }

    /// fish answers completions itself: `complete -C LINE`.
    @Test(.enabled(if: CompletionTests.fishAvailable, "fish is not installed"))
    func fishCompletesCommandsOptionsValuesAndMediaFiles() throws {
        let dir = try Self.fixture(); defer { try? FileManager.default.removeItem(atPath: dir) }
        let script = try Self.script("fish", in: dir); defer { try? FileManager.default.removeItem(atPath: script) }
        try Self.check("fish") { line in
            let r = try Scrub.execute(
                "fish", ["--no-config", "-c", "source '\(script)'; complete -C '\(line)'"], directory: dir)
            #expect(r.status == 0, "fish: \(r.stderr)")
            return Set(r.stdout.split(separator: "\n").map { String($0.split(separator: "\t")[0]) })
        }
    }

    @Test func anUnknownShellIsAUsageError() throws {
        #expect(try Scrub.run(["completions", "tcsh"]).status == 64)
        #expect(try Scrub.run(["completions"]).status == 64)
    }
}

@Suite struct InstallTests {
    /// tools/install into a fresh prefix puts every part in place (the installed scrubkit runs, man finds its pages,
    /// the thumbnailer names the installed binary); tools/uninstall removes every file it wrote.
    @Test func prefixInstallAndUninstallLeaveNothingBehind() throws {
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scrubkit-prefix-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        let root = Scrub.packageRoot.path
        let install = try Scrub.execute(
            root + "/tools/install", [prefix], environment: ["SCRUBKIT_BINARY": Scrub.binary])
        try #require(install.status == 0, "install: \(install.stderr)")
        for file in [
            "bin/scrubkit", "share/man/man1/scrubkit.1", "share/man/man1/scrubkit-thumb.1",
            "share/bash-completion/completions/scrubkit",
            "share/zsh/site-functions/_scrubkit", "share/fish/vendor_completions.d/scrubkit.fish",
            "share/thumbnailers/scrubkit.thumbnailer", "share/doc/scrubkit/README.md", "share/scrubkit/installed-files",
        ] {
            #expect(FileManager.default.fileExists(atPath: prefix + "/" + file), "\(file) installed")
        }
        let v = try Scrub.execute(prefix + "/bin/scrubkit", ["--version"])
        #expect(v.status == 0 && v.stdout.hasPrefix("scrubkit "))
        let thumbnailer = try String(
            contentsOfFile: prefix + "/share/thumbnailers/scrubkit.thumbnailer", encoding: .utf8)
        #expect(thumbnailer.contains("Exec=\(prefix)/bin/scrubkit thumb %i"), "\(thumbnailer)")
        if let man = try? Scrub.execute("man", ["-M", prefix + "/share/man", "-w", "scrubkit-thumb"]), man.status != 127
        {
            #expect(
                man.stdout.contains(prefix + "/share/man/man1/scrubkit-thumb.1"), "man -w: \(man.stdout)\(man.stderr)")
        }
        let uninstall = try Scrub.execute(root + "/tools/uninstall", [prefix])
        #expect(uninstall.status == 0, "uninstall: \(uninstall.stderr)")
        let left =
            FileManager.default.enumerator(atPath: prefix)?.compactMap { $0 as? String }
            .filter {
                var d: ObjCBool = false;
                return FileManager.default.fileExists(atPath: prefix + "/" + $0, isDirectory: &d) && !d.boolValue
            } ?? []
        #expect(left.isEmpty, "left after uninstall: \(left)")
        #expect(
            try Scrub.execute(root + "/tools/uninstall", [prefix]).status == 1,
            "a second uninstall finds nothing to remove")
    }

    /// tools/package-deb (from the debug binary here; the shipped one in use): the files a user expects, and
    /// Depends naming FFmpeg's libraries, which scrubkit opens at run time and dpkg-shlibdeps cannot see.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/dpkg-deb"), "not a Debian system"))
    func debianPackageHoldsEverythingAndDependsOnWhatIsOpenedAtRunTime() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("scrubkit-deb-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let r = try Scrub.execute(
            Scrub.packageRoot.path + "/tools/package-deb", ["--binary", Scrub.binary, "--out", out])
        try #require(r.status == 0, "package-deb: \(r.stderr)")
        let deb = try #require(r.stdout.split(separator: "\n").last.map(String.init))
        #expect(
            deb.hasPrefix(out + "/scrubkit_") && deb.hasSuffix(".deb") && FileManager.default.fileExists(atPath: deb))
        let depends = try Scrub.execute("dpkg-deb", ["-f", deb, "Depends"]).stdout
        // libavfilter too: GIF previews need it (and the player's pitch at other speeds).
        for package in ["libavformat59", "libavcodec59", "libswscale6", "libavutil57", "libswresample4", "libavfilter8",
                        "libheif1", "libwebp7", "libsixel1", "libc6"] {
            #expect(depends.contains(package + " ("), "Depends: \(depends) lacks \(package)")
        }
        let recommends = try Scrub.execute("dpkg-deb", ["-f", deb, "Recommends"]).stdout
        #expect(!recommends.contains("libavfilter"), "Recommends: \(recommends)")
        // Apache-2.0, and each library's licence named in the machine-readable copyright file.
        let copyright = try Scrub.execute(
            "sh", ["-c", "dpkg-deb --fsys-tarfile '\(deb)' | tar -xOf - ./usr/share/doc/scrubkit/copyright"]
        ).stdout
        #expect(
            copyright.contains("License: Apache-2.0") && !copyright.contains("proprietary")
                && !copyright.contains("all rights"),
            "copyright: \(copyright)")
        for library in [
            "FFmpeg", "libjpeg-turbo", "libwebp", "libheif", "libsixel", "FreeType", "fontconfig", "zlib", "libmd",
            "libpulse",
        ] {
            #expect(copyright.contains(library), "copyright names \(library)")
        }
        let contents = try Scrub.execute("dpkg-deb", ["-c", deb]).stdout
        for path in [
            "./usr/bin/scrubkit", "./usr/share/man/man1/scrubkit.1.gz", "./usr/share/man/man1/scrubkit-thumbs.1.gz",
            "./usr/share/bash-completion/completions/scrubkit", "./usr/share/zsh/vendor-completions/_scrubkit",
            "./usr/share/fish/vendor_completions.d/scrubkit.fish", "./usr/share/thumbnailers/scrubkit.thumbnailer",
            "./usr/share/doc/scrubkit/copyright", "./usr/share/doc/scrubkit/changelog.gz",
        ] {
            #expect(contents.contains(" " + path + "\n"), "package lacks \(path)")
        }
        #expect(!contents.contains("/usr/local"), "nothing under /usr/local")
        #expect(contents.split(separator: "\n").allSatisfy { $0.contains("root/root") }, "files owned by root")
    }
}
