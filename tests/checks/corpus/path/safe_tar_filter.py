import tarfile


def unpack(archive_path, target_dir):
    with tarfile.open(archive_path) as tar:
        tar.extractall(target_dir, filter="data")
