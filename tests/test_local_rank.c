/*
 * test_local_rank.c - the rank-local device: which launcher variable wins,
 * rank modulo the devices the driver shows (two mock devices), ranks that
 * share a device, hostile values, and CUDYN_DEVICE=local choosing a new
 * thread's first device.
 */
#include "config.h"

#include <pthread.h>
#include <string.h>

#include "cudyn.h"
#include "testutil.h"

static const char *const variables[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE", "SLURM_LOCALID",
                                        "PMI_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK", "PALS_LOCAL_RANKID"};

static void clear_launcher(void)
{
    for (size_t i = 0; i < sizeof variables / sizeof variables[0]; i++)
        unsetenv(variables[i]);
}

static void expect_message(const char *text)
{
    cudyn_error e = {.size = sizeof e};
    cudyn_last_error(&e);
    CHECK_CONTAINS(e.message, text);
}

static struct cudyn_local_rank info(int expected_status)
{
    struct cudyn_local_rank l = {.size = sizeof l};
    CHECK_STATUS(cudyn_local_rank_info(&l), expected_status);
    return l;
}

static void test_choice(void)
{
    clear_launcher();
    struct cudyn_local_rank l = info(CUDYN_ERROR_NOT_FOUND);
    CHECK(l.variable == NULL);
    expect_message("SLURM_LOCALID");

    setenv("PALS_LOCAL_RANKID", "0", 1);
    setenv("SLURM_LOCALID", "1", 1);
    l = info(CUDYN_OK);
    CHECK_CONTAINS(l.variable, "SLURM_LOCALID"); /* listed before PALS */
    CHECK_EQ_INT(l.device, 1);
    CHECK_EQ_INT(l.shared, 0);

    setenv("OMPI_COMM_WORLD_LOCAL_RANK", "0", 1);
    setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "2", 1);
    l = info(CUDYN_OK);
    CHECK_CONTAINS(l.variable, "OMPI_COMM_WORLD_LOCAL_RANK");
    CHECK_EQ_INT(l.local_rank, 0);
    CHECK_EQ_INT(l.local_size, 2);
    CHECK_EQ_INT(l.device_count, 2);
    CHECK_EQ_INT(l.shared, 0);

    int ordinal = -5, current = -5;
    setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1", 1);
    cudyn_clear_error();
    CHECK_STATUS(cudyn_device_use_local(&ordinal), CUDYN_OK);
    CHECK_EQ_INT(ordinal, 1);
    CHECK_STATUS(cudyn_device_current(&current), CUDYN_OK);
    CHECK_EQ_INT(current, 1);
    CHECK_EQ_INT(cudyn_last_error(NULL), CUDYN_OK);

    /* three ranks on two devices: rank 2 shares device 0 */
    setenv("OMPI_COMM_WORLD_LOCAL_RANK", "2", 1);
    setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "3", 1);
    cudyn_clear_error();
    CHECK_STATUS(cudyn_device_use_local(&ordinal), CUDYN_OK);
    CHECK_EQ_INT(ordinal, 0);
    CHECK_EQ_INT(cudyn_last_error(NULL), CUDYN_OK);
    expect_message("other local ranks share");
    /* rank 0 of those three shares too: the size says so */
    setenv("OMPI_COMM_WORLD_LOCAL_RANK", "0", 1);
    CHECK_EQ_INT(info(CUDYN_OK).shared, 1);
    /* ... and rank 1 has device 1 to itself */
    setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1", 1);
    CHECK_EQ_INT(info(CUDYN_OK).shared, 0);
}

static void test_hostile(void)
{
    static const char *const bad[] = {"-1", "99999999999", "abc", "1x", "", " 1", "+1"};
    clear_launcher();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setenv("PMI_LOCAL_RANK", bad[i], 1);
        int ordinal = 7;
        CHECK_STATUS(cudyn_device_use_local(&ordinal), CUDYN_ERROR_INVALID_ARGUMENT);
        CHECK_EQ_INT(ordinal, -1);
        expect_message("PMI_LOCAL_RANK");
        expect_message("is not a local rank");
    }
    struct cudyn_local_rank small = {.size = 4};
    CHECK_STATUS(cudyn_local_rank_info(&small), CUDYN_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(cudyn_local_rank_info(NULL), CUDYN_ERROR_INVALID_ARGUMENT);
    clear_launcher();
}

static void *first_device(void *status_out)
{
    int current = -1;
    int st = cudyn_device_current(&current);
    *(int *)status_out = st == CUDYN_OK ? current : -100 - st;
    return NULL;
}

static int in_new_thread(void)
{
    pthread_t t;
    int result = -1;
    CHECK(pthread_create(&t, NULL, first_device, &result) == 0);
    CHECK(pthread_join(t, NULL) == 0);
    return result;
}

static void test_environment_choice(void)
{
    clear_launcher();
    unsetenv("CUDYN_DEVICE");
    CHECK_EQ_INT(in_new_thread(), 0);
    setenv("CUDYN_DEVICE", "local", 1);
    setenv("MV2_COMM_WORLD_LOCAL_RANK", "3", 1);
    CHECK_EQ_INT(in_new_thread(), 1);
    setenv("CUDYN_DEVICE", "gpu1", 1);
    CHECK_EQ_INT(in_new_thread(), -100 - CUDYN_ERROR_INVALID_ARGUMENT);
    setenv("CUDYN_DEVICE", "local", 1);
    clear_launcher();
    CHECK_EQ_INT(in_new_thread(), -100 - CUDYN_ERROR_NOT_FOUND);
    unsetenv("CUDYN_DEVICE");
}

/* srun --gpus-per-task=1: each rank sees one GPU through
 * CUDA_VISIBLE_DEVICES; rank 1 takes ordinal 0 and shares nothing. */
static int child_one_gpu_per_task(void)
{
    clear_launcher();
    setenv("SLURM_LOCALID", "1", 1);
    struct cudyn_local_rank l = info(CUDYN_OK);
    CHECK_EQ_INT(l.device_count, 1);
    CHECK_EQ_INT(l.device, 0);
    CHECK_EQ_INT(l.shared, 0);
    unsetenv("CUDA_VISIBLE_DEVICES"); /* one GPU for the node: then rank 1 shares it */
    CHECK_EQ_INT(info(CUDYN_OK).shared, 1);
    return test_failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "one-gpu-per-task") == 0)
        return child_one_gpu_per_task();
    setenv("MOCK_CUDA_DEVICES", "A:90,B:80", 1);
    use_mock_driver();
    test_choice();
    test_hostile();
    test_environment_choice();
    setenv("MOCK_CUDA_DEVICES", "A:90", 1);
    setenv("CUDA_VISIBLE_DEVICES", "1", 1); /* the mock ignores it; cudyn reads that it is set */
    CHECK_EQ_INT(run_self(argv[0], "one-gpu-per-task"), 0);
    return test_result("test_local_rank");
}
