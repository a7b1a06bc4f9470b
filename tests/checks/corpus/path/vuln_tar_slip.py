import tarfile


def unpack(archive_path, target_dir):
    with tarfile.open(archive_path) as tar:
        for entry in tar:
            tar.extract(entry, target_dir)
