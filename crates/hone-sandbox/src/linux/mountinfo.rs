//! The mount table as `/proc/self/mountinfo` gives it: each mount point with the per-mount
//! flags a bind remount must repeat (a user namespace may add restrictions to a mount it
//! inherited, never drop them).

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::PathBuf;

use nix::mount::MsFlags;

/// One mount of the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mount {
    /// Where it is mounted.
    pub point: PathBuf,
    /// Its per-mount flags (`nosuid`, `nodev`, `noexec`, the atime flags, `ro`).
    pub flags: MsFlags,
}

/// Parses the text of `/proc/self/mountinfo`; lines that do not parse are skipped.
pub(crate) fn parse(text: &str) -> Vec<Mount> {
    text.lines().filter_map(parse_line).collect()
}

/// One line: `ID PARENT MAJ:MIN ROOT POINT OPTIONS [TAGS…] - TYPE SOURCE SUPER-OPTIONS`.
fn parse_line(line: &str) -> Option<Mount> {
    let mut fields = line.split(' ');
    let point = fields.nth(4)?;
    let options = fields.next()?;
    Some(Mount {
        point: PathBuf::from(unescape(point)),
        flags: flags_of(options),
    })
}

/// The flags named by a per-mount option list such as `rw,nosuid,relatime`.
fn flags_of(options: &str) -> MsFlags {
    options
        .split(',')
        .fold(MsFlags::empty(), |flags, option| match option {
            "ro" => flags | MsFlags::MS_RDONLY,
            "nosuid" => flags | MsFlags::MS_NOSUID,
            "nodev" => flags | MsFlags::MS_NODEV,
            "noexec" => flags | MsFlags::MS_NOEXEC,
            "noatime" => flags | MsFlags::MS_NOATIME,
            "nodiratime" => flags | MsFlags::MS_NODIRATIME,
            "relatime" => flags | MsFlags::MS_RELATIME,
            "strictatime" => flags | MsFlags::MS_STRICTATIME,
            _ => flags,
        })
}

/// Undoes the kernel's octal escapes (`\040` for a space, `\011`, `\012`, `\134`).
fn unescape(field: &str) -> OsString {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let octal = bytes
            .get(index + 1..index + 4)
            .filter(|digits| bytes[index] == b'\\' && digits.iter().all(u8::is_ascii_digit))
            .and_then(|digits| u8::from_str_radix(std::str::from_utf8(digits).ok()?, 8).ok());
        match octal {
            Some(byte) => {
                out.push(byte);
                index += 4;
            }
            None => {
                out.push(bytes[index]);
                index += 1;
            }
        }
    }
    OsString::from_vec(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_gives_its_mount_point_and_per_mount_flags() {
        let text = "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard\n\
                    28 27 0:25 / /mnt/tools ro,nosuid,nodev,relatime shared:4 - tmpfs t ro\n\
                    garbage\n";
        let mounts = parse(text);
        assert_eq!(mounts.len(), 2);
        assert_eq!(mounts[0].point, PathBuf::from("/"));
        assert_eq!(mounts[0].flags, MsFlags::MS_RELATIME);
        assert_eq!(mounts[1].point, PathBuf::from("/mnt/tools"));
        assert_eq!(
            mounts[1].flags,
            MsFlags::MS_RDONLY | MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_RELATIME
        );
    }

    #[test]
    fn escaped_mount_points_are_decoded() {
        let mounts = parse("30 27 0:40 / /media/my\\040disk\\134x rw,noexec - vfat /dev/sdb rw\n");
        assert_eq!(mounts[0].point, PathBuf::from("/media/my disk\\x"));
        assert_eq!(mounts[0].flags, MsFlags::MS_NOEXEC);
    }
}
