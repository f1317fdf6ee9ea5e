import Foundation
import Testing

/// The cluster examples the README shows are the files in share/cluster, and their shard counts agree with the
/// number of tasks or pods they start (a shard count read from a one-task rerun was the bug this guards against).
@Suite struct ClusterExampleTests {
    let root = Scrub.packageRoot

    func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    @Test func readmeShowsTheFilesAsTheyAre() throws {
        let readme = try text("README.md")
        #expect(readme.contains("```sh\n" + (try text("share/cluster/thumbs.sbatch")) + "```"))
        #expect(readme.contains("```yaml\n" + (try text("share/cluster/thumbs-job.yaml")) + "```"))
    }

    @Test func slurmShardCountIsTheArraySize() throws {
        let script = try text("share/cluster/thumbs.sbatch")
        let array = try #require(script.firstMatch(of: /#SBATCH --array=0-(\d+)\n/)).1
        let n = try #require(script.firstMatch(of: /\nN=(\d+)\n/)).1
        #expect(Int(array)! + 1 == Int(n)!)
        #expect(script.contains("--shard \"$SLURM_ARRAY_TASK_ID/$N\""))
        #expect(!script.contains("SLURM_ARRAY_TASK_COUNT\""), "a rerun of one task is an array of one")
    }

    @Test func kubernetesShardCountIsTheCompletions() throws {
        let job = try text("share/cluster/thumbs-job.yaml")
        let completions = try #require(job.firstMatch(of: /completions: (\d+)\n/)).1
        let n = try #require(job.firstMatch(of: /"\$\(JOB_COMPLETION_INDEX\)\/(\d+)"/)).1
        #expect(completions == n)
    }
}
